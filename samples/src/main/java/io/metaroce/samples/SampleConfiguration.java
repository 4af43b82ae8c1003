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

import io.metaroce.driver.Configuration;
import org.agrona.SystemUtil;
import org.agrona.concurrent.IdleStrategy;

import java.util.concurrent.TimeUnit;

/**
 * Settings shared by the samples, read from system properties ({@code -Dmetaroce.sample.<name>=<value>}).
 */
final class SampleConfiguration
{
    static final String CHANNEL = System.getProperty("metaroce.sample.channel", "metaroce:ipc");
    static final int STREAM_ID = Integer.getInteger("metaroce.sample.stream.id", 1001);
    static final int PONG_STREAM_ID = Integer.getInteger("metaroce.sample.pong.stream.id", 1002);
    static final int MESSAGE_LENGTH = Integer.getInteger("metaroce.sample.message.length", 32);
    static final int MESSAGES = Integer.getInteger("metaroce.sample.messages", 10);
    static final int FRAGMENT_LIMIT = Integer.getInteger("metaroce.sample.fragment.limit", 256);
    static final long WARMUP_NS = SystemUtil.getDurationInNanos("metaroce.sample.warmup", TimeUnit.SECONDS.toNanos(1));
    static final long DURATION_NS = SystemUtil.getDurationInNanos(
        "metaroce.sample.duration", TimeUnit.SECONDS.toNanos(5));
    static final boolean EXCLUSIVE = Boolean.parseBoolean(System.getProperty("metaroce.sample.exclusive", "true"));
    private static final String IDLE_NAMES = "spin, noop, yield, backoff, sleep-ns:<n> or a class name";

    private SampleConfiguration()
    {
    }

    /**
     * Document the properties of the IPC throughput measurement.
     */
    static ToolArguments throughputProperties(final ToolArguments arguments)
    {
        return streamProperties(arguments)
            .property("metaroce.sample.duration", "5s", "measured time")
            .property("metaroce.sample.exclusive", "true", "exclusive publication; false: a concurrent one")
            .property("metaroce.sample.fragment.limit", "256", "fragments per subscriber poll")
            .property("metaroce.sample.publisher.idle", "yield", "publisher idle strategy: " + IDLE_NAMES)
            .property("metaroce.sample.subscriber.idle", "yield", "subscriber idle strategy");
    }

    /**
     * Document the properties of the IPC round-trip measurement.
     */
    static ToolArguments pingPongProperties(final ToolArguments arguments)
    {
        return streamProperties(arguments)
            .property("metaroce.sample.pong.stream.id", "1002", "stream id of the pongs")
            .property("metaroce.sample.warmup", "1s", "warm-up before measuring")
            .property("metaroce.sample.duration", "5s", "measured time")
            .property("metaroce.sample.ping.idle", "spin", "ping thread idle strategy: " + IDLE_NAMES)
            .property("metaroce.sample.pong.idle", "spin", "pong thread idle strategy");
    }

    /**
     * Document the properties of the embedded driver the IPC samples start.
     */
    static ToolArguments embeddedDriverProperties(final ToolArguments arguments)
    {
        return arguments
            .property("metaroce.threading.mode", "SHARED", "threading of the embedded driver")
            .property("metaroce.shared.idle.strategy", "backoff", "idle strategy of the embedded driver's thread")
            .property("metaroce.dir", "the default driver directory", "directory of the embedded driver")
            .note("Any other media driver property (docs/driver.md) applies to the embedded driver too.");
    }

    private static ToolArguments streamProperties(final ToolArguments arguments)
    {
        return arguments
            .property("metaroce.sample.channel", "metaroce:ipc", "channel of the measured stream")
            .property("metaroce.sample.stream.id", "1001", "stream id")
            .property("metaroce.sample.message.length", "32", "message length in bytes");
    }

    /**
     * Idle strategy named by a sample property: {@code spin}, {@code noop}, {@code yield}, {@code backoff},
     * {@code sleep-ns:<n>} or a class name.
     */
    static IdleStrategy idleStrategy(final String propertyName, final String defaultName)
    {
        return Configuration.idleStrategy(propertyName, System.getProperty(propertyName, defaultName));
    }
}
