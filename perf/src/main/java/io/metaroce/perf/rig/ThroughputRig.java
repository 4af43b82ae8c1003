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

import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;

/**
 * Measures one-way throughput through a {@link BenchSystem}: the calling thread offers messages as fast as the
 * system takes them while the subscriber counts on its own thread; after a warm-up, the messages received during
 * the measured phase are counted.
 */
public final class ThroughputRig
{
    /**
     * Outcome of one run.
     *
     * @param messages      received during the measured phase.
     * @param bytes         payload bytes received during the measured phase.
     * @param elapsedNs     length of the measured phase.
     * @param backPressured offers refused during the measured phase.
     * @param longestGapNs  longest time between two deliveries during the measured phase: the stream's worst pause.
     */
    public record Result(long messages, long bytes, long elapsedNs, long backPressured, long longestGapNs)
    {
        /**
         * Messages per second received.
         *
         * @return the rate.
         */
        public double messagesPerSecond()
        {
            return messages * 1e9 / elapsedNs;
        }
    }

    private ThroughputRig()
    {
    }

    /**
     * Run a warm-up phase and a measured phase.
     *
     * @param system          under test.
     * @param length          of each message in bytes.
     * @param warmupNs        length of the warm-up phase.
     * @param measureNs       length of the measured phase.
     * @param publisherIdle   idle strategy of the publishing thread when an offer is refused.
     * @param subscriberIdle  idle strategy of the subscriber thread.
     * @return the result of the measured phase.
     */
    public static Result run(
        final BenchSystem system,
        final int length,
        final long warmupNs,
        final long measureNs,
        final IdleStrategy publisherIdle,
        final IdleStrategy subscriberIdle)
    {
        final ReceiveCounts counts = new ReceiveCounts();
        final AgentRunner subscriber = new AgentRunner(
            subscriberIdle, Throwable::printStackTrace, null, system.throughputSubscriber(counts));
        try (ThroughputPublisher publisher = system.throughputPublisher())
        {
            AgentRunner.startOnThread(subscriber);
            publish(publisher, length, warmupNs, publisherIdle);

            final long messagesBefore = counts.messages();
            final long bytesBefore = counts.bytes();
            final long start = System.nanoTime();
            counts.measureFrom(start);
            final long refused = publish(publisher, length, measureNs, publisherIdle);
            final long elapsedNs = System.nanoTime() - start;

            return new Result(counts.messages() - messagesBefore, counts.bytes() - bytesBefore, elapsedNs, refused,
                counts.longestGapNs());
        }
        finally
        {
            CloseHelper.close(subscriber);
        }
    }

    private static long publish(
        final ThroughputPublisher publisher, final int length, final long durationNs, final IdleStrategy idle)
    {
        final long end = System.nanoTime() + durationNs;
        long refused = 0;
        int sinceClockRead = 0;
        while (true)
        {
            if (++sinceClockRead == 64)
            {
                sinceClockRead = 0;
                if (System.nanoTime() >= end)
                {
                    return refused;
                }
            }

            if (publisher.offer(length))
            {
                idle.reset();
            }
            else
            {
                refused++;
                idle.idle();
            }
        }
    }
}
