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

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.util.concurrent.TimeUnit;

/**
 * Settings applied identically to every system of a comparison: the driver's idle strategy (it runs in SHARED mode,
 * one thread, for both this project and Aeron), the idle strategies of the application threads, and the term
 * length of the streams.
 *
 * @param driverIdle      idle strategy name of the driver thread.
 * @param applicationIdle idle strategy name of the echo, subscriber and publisher threads.
 * @param termLength      term length of every stream, in bytes.
 */
public record SystemSettings(String driverIdle, String applicationIdle, int termLength)
{
    /**
     * System property naming the driver idle strategy of the IPC scenario (default {@code backoff}).
     */
    public static final String IPC_DRIVER_IDLE_PROP_NAME = "metaroce.bench.ipc.driver.idle";

    /**
     * System property naming the application threads' idle strategy of the IPC scenario (default {@code spin}).
     */
    public static final String IPC_APPLICATION_IDLE_PROP_NAME = "metaroce.bench.ipc.application.idle";

    /**
     * System property naming the driver idle strategy of the network scenarios (default {@code yield}).
     */
    public static final String UDP_DRIVER_IDLE_PROP_NAME = "metaroce.bench.udp.driver.idle";

    /**
     * System property naming the application threads' idle strategy of the network scenarios (default {@code yield}).
     */
    public static final String UDP_APPLICATION_IDLE_PROP_NAME = "metaroce.bench.udp.application.idle";

    /**
     * Defaults for IPC on a 2-core machine: the driver is not on the data path, so it backs off while the two
     * application threads spin.
     *
     * @return the settings.
     */
    public static SystemSettings ipcDefaults()
    {
        return new SystemSettings(
            System.getProperty(IPC_DRIVER_IDLE_PROP_NAME, "backoff"),
            System.getProperty(IPC_APPLICATION_IDLE_PROP_NAME, "spin"),
            16 * 1024 * 1024);
    }

    /**
     * Defaults for UDP on a 2-core machine: the driver thread is on the data path, so every thread yields rather than
     * spinning three threads on two cores.
     *
     * @return the settings.
     */
    public static SystemSettings udpDefaults()
    {
        return new SystemSettings(
            System.getProperty(UDP_DRIVER_IDLE_PROP_NAME, "yield"),
            System.getProperty(UDP_APPLICATION_IDLE_PROP_NAME, "yield"),
            16 * 1024 * 1024);
    }

    /**
     * Defaults for the {@code failover} scenario: the driver yields as in {@link #udpDefaults()}, but the publisher and
     * the receiver back off (spin, yield, then park) when they find nothing to do. The scenario has no Aeron column to
     * keep settings identical with, and what it measures is the protocol's failover: with three threads that are
     * always runnable on 2 cores the scheduler runs each of them in slices of a kernel tick (4 ms here), and the
     * stream then stalls for several milliseconds every few milliseconds before any plane goes down.
     * {@link #UDP_APPLICATION_IDLE_PROP_NAME} still overrides the application threads' strategy.
     *
     * @return the settings.
     */
    public static SystemSettings failoverDefaults()
    {
        return new SystemSettings(
            System.getProperty(UDP_DRIVER_IDLE_PROP_NAME, "yield"),
            System.getProperty(UDP_APPLICATION_IDLE_PROP_NAME, "backoff"),
            16 * 1024 * 1024);
    }

    /**
     * A new idle strategy by name: {@code spin}, {@code noop}, {@code yield}, {@code backoff} or {@code sleep}
     * (10 µs sleeps).
     *
     * @param name of the strategy.
     * @return a new instance.
     */
    public static IdleStrategy idleStrategy(final String name)
    {
        switch (name)
        {
            case "spin":
                return new BusySpinIdleStrategy();
            case "noop":
                return NoOpIdleStrategy.INSTANCE;
            case "yield":
                return new YieldingIdleStrategy();
            case "backoff":
                return new BackoffIdleStrategy(
                    10, 20, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(1));
            case "sleep":
                return new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(10));
            default:
                throw new IllegalArgumentException("unknown idle strategy: " + name);
        }
    }
}
