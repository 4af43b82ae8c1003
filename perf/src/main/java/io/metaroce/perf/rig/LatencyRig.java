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

import org.HdrHistogram.Histogram;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.TimeUnit;

/**
 * Measures round trips through a {@link BenchSystem}'s echo.
 * <p>
 * Open loop ({@code ratePerSecond > 0}): message {@code i} is due at {@code start + i * interval} and carries that
 * due time; the measuring thread sends it as soon as it is due (immediately when the schedule is behind) and
 * records {@code arrival - due} for its echo, so a stall is charged to every message it holds up. Closed loop
 * ({@code ratePerSecond == 0}): one message in flight, sent as soon as the previous echo returns, stamped with its
 * actual send time; this is the classic ping-pong that the raw limit of a medium is measured with.
 * <p>
 * The measuring thread spins or yields between sends according to its idle strategy; it never parks, which would
 * break the schedule. The echo runs on its own thread with the given idle strategy.
 */
public final class LatencyRig
{
    private static final long HIGHEST_TRACKABLE_NS = TimeUnit.SECONDS.toNanos(60);
    private static final long DRAIN_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(5);

    /**
     * Outcome of one run.
     *
     * @param sent       messages sent during the measured phase.
     * @param received   echoes of those messages received.
     * @param elapsedNs  length of the measured phase.
     * @param histogram  round trips of the measured phase, in nanoseconds.
     * @param dutyCycles the driver's duty cycles during the measured phase and those that reported work, or null.
     * @param runQueueWaitNs how long the measuring thread, then all threads of the process, waited for a core
     *                   during the measured phase ({@link RunQueueWait}), or null where the kernel does not say.
     */
    public record Result(
        long sent, long received, long elapsedNs, Histogram histogram, long[] dutyCycles, long[] runQueueWaitNs)
    {
    }

    private final Histogram histogram = new Histogram(HIGHEST_TRACKABLE_NS, 3);
    private long measureFromNs = Long.MAX_VALUE;
    private long received;
    private long outstanding;

    private LatencyRig()
    {
    }

    /**
     * Run a warm-up phase and a measured phase against a system.
     *
     * @param system        under test.
     * @param length        of each message in bytes, at least 8.
     * @param ratePerSecond messages per second, or 0 for one message in flight at a time.
     * @param warmupNs      length of the warm-up phase.
     * @param measureNs     length of the measured phase.
     * @param senderIdle    idle strategy of the measuring thread between sends (spin or yield).
     * @param echoIdle      idle strategy of the echo thread.
     * @return the result of the measured phase.
     */
    public static Result run(
        final BenchSystem system,
        final int length,
        final long ratePerSecond,
        final long warmupNs,
        final long measureNs,
        final IdleStrategy senderIdle,
        final IdleStrategy echoIdle)
    {
        final LatencyRig rig = new LatencyRig();
        final AgentRunner echo = new AgentRunner(echoIdle, Throwable::printStackTrace, null, system.echoAgent());
        try (MessageTransceiver transceiver = system.transceiver(rig::onEcho))
        {
            AgentRunner.startOnThread(echo);
            rig.runPhase(transceiver, length, ratePerSecond, warmupNs, senderIdle, false);
            final long[] cyclesBefore = system.driverDutyCycles();
            final RunQueueWait waitBefore = RunQueueWait.sample();
            final long start = System.nanoTime();
            final long sent = rig.runPhase(transceiver, length, ratePerSecond, measureNs, senderIdle, true);
            final long elapsedNs = System.nanoTime() - start;
            final RunQueueWait waitAfter = RunQueueWait.sample();
            final long[] cyclesAfter = system.driverDutyCycles();
            rig.drain(transceiver, senderIdle);
            final long[] dutyCycles = null == cyclesBefore ? null :
                new long[]{ cyclesAfter[0] - cyclesBefore[0], cyclesAfter[1] - cyclesBefore[1] };
            return new Result(sent, rig.received, elapsedNs, rig.histogram, dutyCycles,
                RunQueueWait.between(waitBefore, waitAfter));
        }
        finally
        {
            CloseHelper.close(echo);
        }
    }

    private long runPhase(
        final MessageTransceiver transceiver,
        final int length,
        final long ratePerSecond,
        final long durationNs,
        final IdleStrategy idle,
        final boolean measure)
    {
        drain(transceiver, idle);
        final long start = System.nanoTime();
        final long end = start + durationNs;
        final long intervalNs = ratePerSecond > 0 ? TimeUnit.SECONDS.toNanos(1) / ratePerSecond : 0;
        measureFromNs = measure ? start : Long.MAX_VALUE;
        received = 0;
        long due = start;
        long sent = 0;

        while (true)
        {
            final long now = System.nanoTime();
            if (now >= end)
            {
                break;
            }

            int work = 0;
            if (0 == intervalNs)
            {
                if (0 == outstanding && transceiver.send(now, length))
                {
                    outstanding++;
                    sent++;
                    work++;
                }
            }
            else if (now >= due && transceiver.send(due, length))
            {
                outstanding++;
                sent++;
                due += intervalNs;
                work++;
            }

            work += transceiver.receive();
            idle.idle(work);
        }

        return sent;
    }

    private void drain(final MessageTransceiver transceiver, final IdleStrategy idle)
    {
        final long deadline = System.nanoTime() + DRAIN_TIMEOUT_NS;
        while (outstanding > 0 && System.nanoTime() < deadline)
        {
            idle.idle(transceiver.receive());
        }
        outstanding = 0;
    }

    private void onEcho(final long timestampNs)
    {
        outstanding--;
        if (timestampNs >= measureFromNs)
        {
            received++;
            histogram.recordValue(Math.min(System.nanoTime() - timestampNs, HIGHEST_TRACKABLE_NS));
        }
    }
}
