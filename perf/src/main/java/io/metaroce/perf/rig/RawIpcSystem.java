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
package io.metaroce.perf.rig;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.nio.ByteBuffer;

/**
 * The raw limit of IPC: two threads handing cache lines back and forth through {@link SlotRing}s, with no messaging
 * system in between. For one-way throughput, where one slot per message would waste the cache lines that a log packs
 * densely, the raw stream is an Agrona {@link OneToOneRingBuffer}: the plainest densely packed single-producer ring.
 */
public final class RawIpcSystem implements BenchSystem
{
    private static final int SLOTS = 1024;
    private static final int FRAGMENT_LIMIT = 16;

    private final SlotRing toEcho;
    private final SlotRing fromEcho;
    private final OneToOneRingBuffer oneWay = new OneToOneRingBuffer(
        new UnsafeBuffer(ByteBuffer.allocateDirect(4 * 1024 * 1024 + RingBufferDescriptor.TRAILER_LENGTH)));
    private final UnsafeBuffer message;

    /**
     * Create the rings.
     *
     * @param maxMessageLength longest message any run will send.
     */
    public RawIpcSystem(final int maxMessageLength)
    {
        toEcho = new SlotRing(SLOTS, maxMessageLength);
        fromEcho = new SlotRing(SLOTS, maxMessageLength);
        message = new UnsafeBuffer(ByteBuffer.allocateDirect(maxMessageLength));
    }

    /**
     * {@inheritDoc}
     */
    public String name()
    {
        return "raw";
    }

    /**
     * {@inheritDoc}
     */
    public MessageTransceiver transceiver(final MessageTransceiver.EchoListener listener)
    {
        final SlotRing.Handler handler = (buffer, offset, length) -> listener.onEcho(buffer.getLong(offset));
        return new MessageTransceiver()
        {
            public boolean send(final long timestampNs, final int length)
            {
                return toEcho.offerTimestamp(timestampNs, length);
            }

            public int receive()
            {
                return fromEcho.poll(handler, FRAGMENT_LIMIT);
            }

            public void close()
            {
            }
        };
    }

    /**
     * {@inheritDoc}
     */
    public Agent echoAgent()
    {
        return new Agent()
        {
            private final SlotRing.Handler handler = this::echo;

            public int doWork()
            {
                return toEcho.poll(handler, FRAGMENT_LIMIT);
            }

            private void echo(final DirectBuffer buffer, final int offset, final int length)
            {
                while (!fromEcho.offer(buffer, offset, length))
                {
                    Thread.onSpinWait();
                }
            }

            public String roleName()
            {
                return "raw-ipc-echo";
            }
        };
    }

    /**
     * {@inheritDoc}
     */
    public ThroughputPublisher throughputPublisher()
    {
        return new ThroughputPublisher()
        {
            public boolean offer(final int length)
            {
                return oneWay.write(1, message, 0, length);
            }

            public void close()
            {
            }
        };
    }

    /**
     * {@inheritDoc}
     */
    public Agent throughputSubscriber(final ReceiveCounts counts)
    {
        return new Agent()
        {
            private long bytes;
            private final MessageHandler handler = (msgTypeId, buffer, offset, length) -> bytes += length;

            public int doWork()
            {
                bytes = 0;
                final int messages = oneWay.read(handler, 256);
                if (messages > 0)
                {
                    counts.add(messages, bytes);
                }
                return messages;
            }

            public String roleName()
            {
                return "raw-ipc-subscriber";
            }
        };
    }

    /**
     * {@inheritDoc}
     */
    public void close()
    {
    }
}
