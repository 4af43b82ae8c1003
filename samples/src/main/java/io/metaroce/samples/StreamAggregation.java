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

import io.prometheus.metrics.model.snapshots.Labels;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static io.metaroce.samples.MetricFamily.gauge;

/**
 * What the exporter serves of the series that describe one stream ({@code --aggregate}): each stream's own series, or
 * their sums per connection or per channel, so that thousands of streams need not mean tens of thousands of series.
 * <p>
 * The position families (publisher limit and position, sender acknowledged position, receiver high-water mark,
 * subscriber position) are summed: a summed position's increase is the bytes of all its streams, and it falls when a
 * stream ends, so read it with {@code deriv} or {@code delta}, not {@code rate}. Per connection, a stream is joined to
 * the connection that carries it through its stream state counter (the sender's for the publisher and sender
 * positions, the receiver's for the high-water mark and the subscriber positions) and takes that connection's labels;
 * a stream no connection carries (IPC, or a network stream not yet set up) is summed by channel. Aggregated, the
 * per-stream state families are not served; {@code metaroce_sender_streams} and {@code metaroce_receiver_streams},
 * the streams of each connection by state, are served in every mode.
 */
public enum StreamAggregation
{
    /**
     * Every stream's series, labelled with its stream, session, registration id and channel.
     */
    STREAM,

    /**
     * One series per connection (and per channel for streams without one).
     */
    CONNECTION,

    /**
     * One series per channel.
     */
    CHANNEL;

    static final MetricFamily SENDER_STREAMS = gauge(
        "metaroce_sender_streams", "Streams a sender connection carries, by state.");
    static final MetricFamily RECEIVER_STREAMS = gauge(
        "metaroce_receiver_streams", "Streams a receiver connection carries, by state.");

    private static final String[] STATE_NAMES = { "SETUP", "ESTABLISHED", "CLOSING", "CLOSED", "FAILED" };
    private static final List<MetricFamily> SENDER_POSITIONS = List.of(
        CounterMetricDecoder.PUBLISHER_LIMIT,
        CounterMetricDecoder.PUBLISHER_POSITION,
        CounterMetricDecoder.SENDER_ACKNOWLEDGED_POSITION);
    private static final List<MetricFamily> RECEIVER_POSITIONS = List.of(
        CounterMetricDecoder.RECEIVER_HIGH_WATER_MARK,
        CounterMetricDecoder.SUBSCRIBER_POSITION);

    /**
     * One sample of a scrape.
     *
     * @param labels    of the series.
     * @param value     in the family's unit.
     * @param counterId the counter it was read from, -1 for a sum of several.
     */
    record Sample(Labels labels, double value, int counterId)
    {
    }

    /**
     * The families this class adds to a scrape, in every mode.
     *
     * @return the families.
     */
    static List<MetricFamily> families()
    {
        return List.of(SENDER_STREAMS, RECEIVER_STREAMS);
    }

    /**
     * The value of {@code --aggregate} that selects this mode.
     *
     * @return the lower-case name.
     */
    public String optionValue()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The mode an {@code --aggregate} value names.
     *
     * @param value the option's value.
     * @return the mode, or null for a value that names none.
     */
    public static StreamAggregation fromOptionValue(final String value)
    {
        for (final StreamAggregation aggregation : values())
        {
            if (aggregation.optionValue().equals(value))
            {
                return aggregation;
            }
        }

        return null;
    }

    /**
     * Rewrite the samples of one scrape in place: add the stream counts and, aggregated, replace the per-stream
     * series by their sums.
     *
     * @param samplesByFamily every family of the scrape with its samples; the stream count families must be keys.
     */
    void apply(final Map<MetricFamily, List<Sample>> samplesByFamily)
    {
        final List<Sample> senderStates = samplesByFamily.get(CounterMetricDecoder.SENDER_STREAM_STATE);
        final List<Sample> receiverStates = samplesByFamily.get(CounterMetricDecoder.RECEIVER_STREAM_STATE);
        countByState(senderStates, samplesByFamily.get(SENDER_STREAMS));
        countByState(receiverStates, samplesByFamily.get(RECEIVER_STREAMS));
        if (STREAM == this)
        {
            return;
        }

        final Map<String, Labels> senderConnections = connectionsByStream(senderStates);
        final Map<String, Labels> receiverConnections = connectionsByStream(receiverStates);
        for (final MetricFamily family : SENDER_POSITIONS)
        {
            samplesByFamily.put(family, sum(samplesByFamily.get(family), senderConnections));
        }
        for (final MetricFamily family : RECEIVER_POSITIONS)
        {
            samplesByFamily.put(family, sum(samplesByFamily.get(family), receiverConnections));
        }
        senderStates.clear();
        receiverStates.clear();
    }

    private List<Sample> sum(final List<Sample> samples, final Map<String, Labels> connections)
    {
        final Map<Labels, Double> sums = new LinkedHashMap<>();
        for (final Sample sample : samples)
        {
            final Labels labels = sample.labels();
            Labels key = CONNECTION == this ? connections.get(streamKey(labels)) : null;
            if (null == key)
            {
                final String channel = labels.get("channel");
                // A label that did not parse names no channel: it stays whole, as unaggregated.
                key = null != channel ? Labels.of("channel", channel) : labels;
            }
            sums.merge(key, sample.value(), Double::sum);
        }

        final List<Sample> summed = new ArrayList<>(sums.size());
        for (final Map.Entry<Labels, Double> entry : sums.entrySet())
        {
            summed.add(new Sample(entry.getKey(), entry.getValue(), -1));
        }

        return summed;
    }

    private static Map<String, Labels> connectionsByStream(final List<Sample> states)
    {
        final Map<String, Labels> connections = new HashMap<>();
        for (final Sample state : states)
        {
            connections.putIfAbsent(streamKey(state.labels()), without(state.labels(), "stream", "session"));
        }

        return connections;
    }

    private static void countByState(final List<Sample> states, final List<Sample> counts)
    {
        final Map<Labels, Integer> streams = new LinkedHashMap<>();
        for (final Sample state : states)
        {
            final long value = (long)state.value();
            final String name = value >= 1 && value <= STATE_NAMES.length ?
                STATE_NAMES[(int)value - 1] : Long.toString(value);
            streams.merge(without(state.labels(), "stream", "session").add("state", name), 1, Integer::sum);
        }
        for (final Map.Entry<Labels, Integer> entry : streams.entrySet())
        {
            counts.add(new Sample(entry.getKey(), entry.getValue(), -1));
        }
    }

    private static String streamKey(final Labels labels)
    {
        return labels.get("stream") + " " + labels.get("session");
    }

    private static Labels without(final Labels labels, final String first, final String second)
    {
        final List<String> names = new ArrayList<>(labels.size());
        final List<String> values = new ArrayList<>(labels.size());
        for (int i = 0; i < labels.size(); i++)
        {
            final String name = labels.getName(i);
            if (!name.equals(first) && !name.equals(second))
            {
                names.add(name);
                values.add(labels.getValue(i));
            }
        }

        return Labels.of(names, values);
    }
}
