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
import io.metaroce.perf.rig.NetworkPlanes;
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
 * Round-trip time of a 32-byte message over UDP on loopback, in sample-time mode (JMH reports the percentiles): the
 * benchmark thread sends a ping to one {@code 127.0.0.1} endpoint and waits for the pong that an echo thread returns
 * to another, through an embedded driver that does the network I/O.
 * <p>
 * The system is the rig's ({@link AeronSystem} over {@code aeron:udp}) with the rig's UDP settings
 * ({@link SystemSettings#udpDefaults()}): SHARED threading, 16 MiB terms, exclusive publications written with
 * {@code tryClaim}, and every thread (driver, ping, echo) yielding, because the driver is on the data path and three
 * spinning threads would starve a 2-core machine ({@code -p applicationIdle=spin} spins the ping and echo threads).
 * <p>
 * This project's column ({@link MetaRoceUdp}) is the rig's {@link MetaRoceSystem} over {@code metaroce:udp} on
 * {@code 127.0.0.1}, one plane ({@link NetworkPlanes#loopback()}), with the same settings and message length; the
 * {@link PingPongSession} and the method body are shared.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {
    "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "-Dagrona.disable.bounds.checks=true"})
public class UdpPingPongBenchmark
{
    static final int MESSAGE_LENGTH = 32;

    static SystemSettings settings(final String applicationIdle)
    {
        final SystemSettings defaults = SystemSettings.udpDefaults();
        return new SystemSettings(defaults.driverIdle(), applicationIdle, defaults.termLength());
    }

    /**
     * Aeron over UDP on loopback.
     */
    @State(Scope.Benchmark)
    public static class AeronUdp
    {
        /**
         * Idle strategy of the ping and echo threads: {@code spin}, {@code yield}, {@code backoff}, {@code noop} or
         * {@code sleep}, as the rig names them.
         */
        @Param({ "yield" })
        public String applicationIdle;

        private PingPongSession session;

        /**
         * Launch the embedded driver and start the echo.
         */
        @Setup(Level.Trial)
        public void setup()
        {
            final SystemSettings settings = settings(applicationIdle);
            session = new PingPongSession(new AeronSystem(true, settings), settings, MESSAGE_LENGTH);
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
     * One round trip with Aeron.
     *
     * @param state of the ping-pong.
     * @return the number of the round trip.
     */
    @Benchmark
    public long aeron(final AeronUdp state)
    {
        return state.session.roundTrip();
    }

    /**
     * This project over UDP on loopback.
     */
    @State(Scope.Benchmark)
    public static class MetaRoceUdp
    {
        /**
         * Idle strategy of the ping and echo threads: {@code spin}, {@code yield}, {@code backoff}, {@code noop} or
         * {@code sleep}, as the rig names them.
         */
        @Param({ "yield" })
        public String applicationIdle;

        private PingPongSession session;

        /**
         * Launch the embedded driver and start the echo.
         */
        @Setup(Level.Trial)
        public void setup()
        {
            final SystemSettings settings = settings(applicationIdle);
            session = new PingPongSession(
                new MetaRoceSystem(settings, NetworkPlanes.loopback()), settings, MESSAGE_LENGTH);
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
    public long metaroce(final MetaRoceUdp state)
    {
        return state.session.roundTrip();
    }
}
