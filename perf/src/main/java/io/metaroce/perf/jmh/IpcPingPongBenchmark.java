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

import io.metaroce.perf.rig.AeronSystem;
import io.metaroce.perf.rig.MetaRoceSystem;
import io.metaroce.perf.rig.SystemSettings;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Round-trip time of a 32-byte message over IPC, in sample-time mode (JMH reports the percentiles): the benchmark
 * thread sends a ping on one stream and waits for the pong that an echo thread returns on another, with this
 * project ({@code metaroce:ipc}) and with Aeron 1.51 ({@code aeron:ipc}).
 * <p>
 * Both systems are the rig's ({@link MetaRoceSystem}, {@link AeronSystem}) with identical settings
 * ({@link SystemSettings#ipcDefaults()}): an embedded driver in SHARED threading mode with a backoff idle strategy
 * (the driver is not on the IPC data path), 16 MiB terms, exclusive publications written with {@code tryClaim}, and
 * ping and echo threads that busy-spin. Each method runs in its own fork, so only one driver runs at a time; on a
 * 2-core machine the two spinning threads take both cores and the driver and client conductors share them.
 * <p>
 * Spinning needs two free cores: when another process holds one, the two spinners share the other and each hand-off
 * waits for the scheduler to preempt a spinner, which puts every round trip in the milliseconds. On such a machine
 * {@code -p applicationIdle=yield} shows the code path instead (both systems get the same setting).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "-Dagrona.disable.bounds.checks=true"})
public class IpcPingPongBenchmark
{
    static final int MESSAGE_LENGTH = 32;

    static SystemSettings settings(final String applicationIdle)
    {
        final SystemSettings defaults = SystemSettings.ipcDefaults();
        return new SystemSettings(defaults.driverIdle(), applicationIdle, defaults.termLength());
    }

    /**
     * This project over IPC.
     */
    @State(Scope.Benchmark)
    public static class MetaRoceIpc
    {
        /**
         * Idle strategy of the ping and echo threads: {@code spin}, {@code yield}, {@code backoff}, {@code noop} or
         * {@code sleep}, as the rig names them.
         */
        @Param({ "spin" })
        public String applicationIdle;

        private PingPongSession session;

        /**
         * Launch the embedded driver and start the echo.
         */
        @Setup(Level.Trial)
        public void setup()
        {
            final SystemSettings settings = settings(applicationIdle);
            session = new PingPongSession(new MetaRoceSystem(settings), settings, MESSAGE_LENGTH);
        }

        /**
         * Stop the echo and the driver.
         */
        @TearDown(Level.Trial)
        public void tearDown()
        {
            session.close();
        }
    }

    /**
     * Aeron over IPC.
     */
    @State(Scope.Benchmark)
    public static class AeronIpc
    {
        /**
         * Idle strategy of the ping and echo threads: {@code spin}, {@code yield}, {@code backoff}, {@code noop} or
         * {@code sleep}, as the rig names them.
         */
        @Param({ "spin" })
        public String applicationIdle;

        private PingPongSession session;

        /**
         * Launch the embedded driver and start the echo.
         */
        @Setup(Level.Trial)
        public void setup()
        {
            final SystemSettings settings = settings(applicationIdle);
            session = new PingPongSession(new AeronSystem(false, settings), settings, MESSAGE_LENGTH);
        }

        /**
         * Stop the echo and the driver.
         */
        @TearDown(Level.Trial)
        public void tearDown()
        {
            session.close();
        }
    }

    /**
     * One round trip with this project.
     *
     * @param state of the ping-pong.
     * @return the number of the round trip.
     */
    @Benchmark
    public long metaroce(final MetaRoceIpc state)
    {
        return state.session.roundTrip();
    }

    /**
     * One round trip with Aeron.
     *
     * @param state of the ping-pong.
     * @return the number of the round trip.
     */
    @Benchmark
    public long aeron(final AeronIpc state)
    {
        return state.session.roundTrip();
    }
}
