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
package io.metaroce.driver.status;

import io.metaroce.client.status.ClientHeartbeat;
import io.metaroce.client.status.CounterTypeId;
import io.metaroce.client.status.StreamCounterDescriptor;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.nio.charset.StandardCharsets;

/**
 * Allocates the per-stream and per-client counters the driver keeps: publisher limit and position, subscriber
 * position, client heartbeat. Keys follow {@link StreamCounterDescriptor}; labels read
 * {@code <name>: <registrationId> <sessionId> <streamId> <channel>}.
 * <p>
 * Allocation throws {@link IllegalStateException} when the counters file is full. Used by the conductor only.
 */
public final class StreamCounter
{
    private final CountersManager countersManager;
    private final UnsafeBuffer keyBuffer = new UnsafeBuffer(new byte[CountersManager.MAX_KEY_LENGTH]);

    /**
     * Create an allocator.
     *
     * @param countersManager of the driver.
     */
    public StreamCounter(final CountersManager countersManager)
    {
        this.countersManager = countersManager;
    }

    /**
     * Allocate a stream counter.
     *
     * @param typeId         of the counter, one of {@link CounterTypeId}'s stream types.
     * @param registrationId of the publication or subscription.
     * @param sessionId      of the stream.
     * @param streamId       of the stream.
     * @param channel        of the stream, for the label.
     * @param suffix         appended to the label, possibly empty.
     * @param initialValue   of the counter.
     * @return the counter id.
     * @throws IllegalStateException if the counters file is full.
     */
    public int allocate(
        final int typeId,
        final long registrationId,
        final int sessionId,
        final int streamId,
        final String channel,
        final String suffix,
        final long initialValue)
    {
        final int keyLength = StreamCounterDescriptor.writeKey(keyBuffer, registrationId, sessionId, streamId);
        final String label = CounterTypeId.name(typeId) + ": " + registrationId + " " + sessionId + " " + streamId +
            " " + channel + suffix;
        final int counterId = allocate(typeId, keyLength, label);
        countersManager.setCounterRegistrationId(counterId, registrationId);
        countersManager.setCounterValue(counterId, initialValue);

        return counterId;
    }

    /**
     * Allocate the heartbeat counter of a client.
     *
     * @param clientId of the client.
     * @param nowMs    initial heartbeat, epoch milliseconds.
     * @return the counter id.
     * @throws IllegalStateException if the counters file is full.
     * @see ClientHeartbeat
     */
    public int allocateClientHeartbeat(final long clientId, final long nowMs)
    {
        keyBuffer.putLong(0, clientId);
        final int counterId = allocate(CounterTypeId.CLIENT_HEARTBEAT, Long.BYTES, "client-heartbeat: " + clientId);
        countersManager.setCounterValue(counterId, nowMs);
        countersManager.setCounterOwnerId(counterId, clientId);
        countersManager.setCounterRegistrationId(counterId, clientId);

        return counterId;
    }

    /**
     * Allocate the local socket address counter of a network endpoint, value 1 (open).
     *
     * @param labelPrefix {@code "rcv-local-addr"} or {@code "snd-local-addr"}.
     * @param addresses   the bound addresses, {@code address:port} per plane separated by commas.
     * @return the counter id.
     * @throws IllegalStateException if the counters file is full.
     * @see CounterTypeId#LOCAL_SOCKET_ADDRESS
     */
    public int allocateLocalSocketAddress(final String labelPrefix, final String addresses)
    {
        final int counterId = allocate(CounterTypeId.LOCAL_SOCKET_ADDRESS, 0, labelPrefix + ": " + addresses);
        countersManager.setCounterValue(counterId, 1);

        return counterId;
    }

    private int allocate(final int typeId, final int keyLength, final String label)
    {
        final byte[] labelBytes = truncate(label.getBytes(StandardCharsets.UTF_8));
        final UnsafeBuffer labelBuffer = new UnsafeBuffer(labelBytes);
        return countersManager.allocate(typeId, keyBuffer, 0, keyLength, labelBuffer, 0, labelBytes.length);
    }

    private static byte[] truncate(final byte[] label)
    {
        if (label.length <= CountersManager.MAX_LABEL_LENGTH)
        {
            return label;
        }

        int length = CountersManager.MAX_LABEL_LENGTH;
        while (length > 0 && (label[length] & 0xC0) == 0x80)
        {
            length--;
        }

        return java.util.Arrays.copyOf(label, length);
    }
}
