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
package io.metaroce.perf.jmh;

import io.metaroce.perf.rig.BenchSystem;
import io.metaroce.perf.rig.MessageTransceiver;
import io.metaroce.perf.rig.SystemSettings;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.TimeUnit;

/**
 * One ping-pong over a {@link BenchSystem} of the rig: the system's echo agent runs on its own thread and returns
 * every message to the benchmark thread, which sends one message and waits for its echo in
 * {@link #roundTrip()}. Both threads wait with the application idle strategy of the {@link SystemSettings}.
 * <p>
 * A system that supports a medium plugs into the ping-pong benchmarks by implementing {@link BenchSystem} for it;
 * nothing here depends on the medium.
 * <p>
 * NOT thread safe: {@link #roundTrip()} is called from one benchmark thread.
 */
final class PingPongSession implements AutoCloseable
{
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(10);
    private static final int SPINS_BETWEEN_CLOCK_READS = 0xFFFF;

    private final BenchSystem system;
    private final AgentRunner echoRunner;
    private final MessageTransceiver transceiver;
    private final IdleStrategy idleStrategy;
    private final int messageLength;
    private long echoes;
    private long lastEcho;

    /**
     * Start the echo on its own thread and connect the measuring end. Takes ownership of the system: it is closed
     * with the session, or at once if the session cannot start.
     *
     * @param system        under test, started.
     * @param settings      whose application idle strategy both ends use.
     * @param messageLength of every ping, at least 8 bytes.
     */
    PingPongSession(final BenchSystem system, final SystemSettings settings, final int messageLength)
    {
        this.system = system;
        this.messageLength = messageLength;
        this.idleStrategy = SystemSettings.idleStrategy(settings.applicationIdle());
        AgentRunner runner = null;
        MessageTransceiver measuringEnd = null;
        try
        {
            runner = new AgentRunner(SystemSettings.idleStrategy(settings.applicationIdle()),
                Throwable::printStackTrace, null, system.echoAgent());
            AgentRunner.startOnThread(runner);
            measuringEnd = system.transceiver(this::onEcho);
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietCloseAll(measuringEnd, runner, system);
            throw ex;
        }
        echoRunner = runner;
        transceiver = measuringEnd;
    }

    private void onEcho(final long timestampNs)
    {
        lastEcho = timestampNs;
        echoes++;
    }

    /**
     * Send one message and wait for its echo.
     *
     * @return the value the echo carried: the number of the round trip.
     * @throws IllegalStateException if the message cannot be sent or its echo does not arrive within 10 s.
     */
    long roundTrip()
    {
        final long expected = echoes + 1;
        long waitStartNs = 0;
        int spins = 0;
        while (!transceiver.send(expected, messageLength))
        {
            idleStrategy.idle();
            if ((++spins & SPINS_BETWEEN_CLOCK_READS) == 0)
            {
                waitStartNs = checkTimeout(waitStartNs, "send");
            }
        }

        while (echoes < expected)
        {
            if (transceiver.receive() == 0)
            {
                idleStrategy.idle();
                if ((++spins & SPINS_BETWEEN_CLOCK_READS) == 0)
                {
                    waitStartNs = checkTimeout(waitStartNs, "echo");
                }
            }
        }

        return lastEcho;
    }

    private long checkTimeout(final long waitStartNs, final String what)
    {
        final long nowNs = System.nanoTime();
        if (0 == waitStartNs)
        {
            return nowNs;
        }

        if (nowNs - waitStartNs > TIMEOUT_NS)
        {
            throw new IllegalStateException(system.name() + ": no " + what + " within 10 s");
        }

        return waitStartNs;
    }

    /**
     * Stop the echo and close the system: its driver, client and directory.
     */
    public void close()
    {
        CloseHelper.closeAll(echoRunner, transceiver, system);
    }
}
