/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.metaroce.samples;

import io.metaroce.client.status.CounterTypeId;
import io.metaroce.client.status.StreamCounterDescriptor;
import io.metaroce.datapath.counters.DatapathCounters;
import io.prometheus.metrics.model.snapshots.Labels;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Counters the driver of this build does not allocate, or labels it would not write: each is still served, under a
 * family that says what is known about it, never dropped.
 */
class CounterMetricDecoderTest
{
    private final CountersManager countersManager = new CountersManager(
        new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 1024)), new UnsafeBuffer(ByteBuffer.allocateDirect(16 * 1024)));

    @Test
    void shouldServeApplicationCounterByTypeIdAndLabel()
    {
        countersManager.newCounter("orders matched", CounterTypeId.MIN_CUSTOM_TYPE_ID + 7).setRelease(42);

        final Decoded decoded = decodeOnly();
        assertEquals(CounterMetricDecoder.CUSTOM, decoded.family);
        assertEquals(Labels.of("type_id", "1007", "label", "orders matched"), decoded.labels);
        assertEquals(42.0, decoded.value);
    }

    @Test
    void shouldServeUnknownDriverCounterAsUnmapped()
    {
        countersManager.newCounter("new-thing: 1", 999).setRelease(3);

        final Decoded decoded = decodeOnly();
        assertEquals(CounterMetricDecoder.UNMAPPED, decoded.family);
        assertEquals(Labels.of("type_id", "999", "label", "new-thing: 1"), decoded.labels);
    }

    @Test
    void shouldServeUnknownNetworkCounterNameAsUnmapped()
    {
        countersManager.newCounter("snd-new-thing: conn=1f agent=sender", DatapathCounters.SENDER_TYPE_ID);

        assertEquals(CounterMetricDecoder.UNMAPPED, decodeOnly().family);
    }

    @Test
    void shouldKeepFamilyAndWholeLabelWhenContextDoesNotParse()
    {
        final String label = "snd-data-bytes: conn=1f agent=sender colour=blue";
        countersManager.newCounter(label, DatapathCounters.SENDER_TYPE_ID).setRelease(1000);

        final Decoded decoded = decodeOnly();
        assertEquals(CounterMetricDecoder.SENDER_DATA_BYTES, decoded.family);
        assertEquals(Labels.of("connection", "1f", "agent", "sender", "label", label), decoded.labels);
        assertEquals(1000.0, decoded.value);
    }

    @Test
    void shouldSplitTotalFromPerReasonRetransmits()
    {
        countersManager.newCounter("snd-retransmits: conn=1f agent=sender", DatapathCounters.SENDER_TYPE_ID);
        countersManager.newCounter(
            "snd-retransmits: conn=1f agent=sender reason=rto", DatapathCounters.SENDER_TYPE_ID);

        final List<Decoded> decoded = decodeAll();
        assertEquals(CounterMetricDecoder.SENDER_RETRANSMITS, decoded.get(0).family);
        assertEquals(CounterMetricDecoder.SENDER_RETRANSMITS_BY_REASON, decoded.get(1).family);
        assertEquals("rto", decoded.get(1).labels.get("reason"));
    }

    @Test
    void shouldConvertNanosecondsToSeconds()
    {
        countersManager.newCounter("path-srtt-ns: conn=1f agent=sender path=3 plane=1",
            DatapathCounters.PATH_TYPE_ID).setRelease(250_000);

        final Decoded decoded = decodeOnly();
        assertEquals(CounterMetricDecoder.PATH_SRTT, decoded.family);
        assertEquals(250e-6, decoded.value, 1e-12);
        assertEquals(Labels.of("connection", "1f", "agent", "sender", "path", "3", "plane", "1"), decoded.labels);
    }

    @Test
    void shouldServeStreamStatesWithTheirConnectionStreamAndSession()
    {
        countersManager.newCounter("snd-stream-state: conn=1f stream=10 session=-5 agent=sender src=127.0.1.1 " +
            "dst=127.0.0.2:40456", DatapathCounters.SENDER_STREAM_TYPE_ID).setRelease(2);
        countersManager.newCounter("rcv-stream-state: conn=2e stream=10 session=-5 agent=receiver " +
            "rcv=127.0.0.2:40456", DatapathCounters.RECEIVER_STREAM_TYPE_ID).setRelease(2);

        final List<Decoded> decoded = decodeAll();
        assertEquals(CounterMetricDecoder.SENDER_STREAM_STATE, decoded.get(0).family);
        assertEquals(Labels.of("connection", "1f", "stream", "10", "session", "-5", "agent", "sender", "interface",
            "127.0.1.1", "endpoint", "127.0.0.2:40456"), decoded.get(0).labels);
        assertEquals(2.0, decoded.get(0).value);
        assertEquals(CounterMetricDecoder.RECEIVER_STREAM_STATE, decoded.get(1).family);
        assertEquals(Labels.of("connection", "2e", "stream", "10", "session", "-5", "agent", "receiver", "endpoint",
            "127.0.0.2:40456"), decoded.get(1).labels);
    }

    @Test
    void shouldServeStreamCounterWhoseLabelDoesNotMatchItsKeyWithItsLabel()
    {
        final UnsafeBuffer key = new UnsafeBuffer(new byte[16]);
        final UnsafeBuffer label = new UnsafeBuffer("pub-pos: something else".getBytes(StandardCharsets.UTF_8));
        StreamCounterDescriptor.writeKey(key, 7, 8, 9);
        countersManager.allocate(CounterTypeId.PUBLISHER_POSITION, key, 0, 16, label, 0, label.capacity());

        final Decoded decoded = decodeOnly();
        assertEquals(CounterMetricDecoder.PUBLISHER_POSITION, decoded.family);
        assertEquals(Labels.of("stream", "9", "session", "8", "registration_id", "7", "label",
            "pub-pos: something else"), decoded.labels);
    }

    @Test
    void shouldServeNegativeCounterValueAsUnmappedRatherThanFailTheScrape()
    {
        countersManager.newCounter("snd-probes: conn=1f agent=sender", DatapathCounters.SENDER_TYPE_ID)
            .setRelease(-1);

        final Decoded decoded = decodeOnly();
        assertEquals(CounterMetricDecoder.UNMAPPED, decoded.family);
        assertEquals("metaroce_sender_probes", decoded.labels.get("family"));
        assertEquals(-1.0, decoded.value);
    }

    private Decoded decodeOnly()
    {
        final List<Decoded> decoded = decodeAll();
        assertEquals(1, decoded.size(), decoded.toString());
        return decoded.get(0);
    }

    private List<Decoded> decodeAll()
    {
        final List<Decoded> decoded = new ArrayList<>();
        final CountersReader reader = countersManager;
        reader.forEach((counterId, typeId, keyBuffer, label) -> CounterMetricDecoder.decode(
            counterId, typeId, keyBuffer, label, reader.getCounterValue(counterId),
            (family, labels, value, id) -> decoded.add(new Decoded(family, labels, value))));

        return decoded;
    }

    private static final class Decoded
    {
        final MetricFamily family;
        final Labels labels;
        final double value;

        Decoded(final MetricFamily family, final Labels labels, final double value)
        {
            this.family = family;
            this.labels = labels;
            this.value = value;
        }

        public String toString()
        {
            return family.name() + labels + " " + value;
        }
    }
}
