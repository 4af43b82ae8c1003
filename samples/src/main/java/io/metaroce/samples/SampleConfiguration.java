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
    static final int STREAM_ID = intProperty("metaroce.sample.stream.id", 1001);
    static final int PONG_STREAM_ID = intProperty("metaroce.sample.pong.stream.id", 1002);
    static final int MESSAGE_LENGTH = intProperty("metaroce.sample.message.length", 32);
    static final int MESSAGES = intProperty("metaroce.sample.messages", 10);
    static final int FRAGMENT_LIMIT = intProperty("metaroce.sample.fragment.limit", 256);
    static final long WARMUP_NS = durationProperty("metaroce.sample.warmup", TimeUnit.SECONDS.toNanos(1));
    static final long DURATION_NS = durationProperty("metaroce.sample.duration", TimeUnit.SECONDS.toNanos(5));
    static final boolean EXCLUSIVE = booleanProperty("metaroce.sample.exclusive", true);
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

    /**
     * Integer named by a sample property: Integer.getInteger would take a malformed value for the default, silently.
     */
    static int intProperty(final String name, final int defaultValue)
    {
        final String value = System.getProperty(name);
        try
        {
            return null == value ? defaultValue : Integer.parseInt(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(name + " must be an integer: " + value);
        }
    }

    /**
     * Duration named by a sample property, such as {@code 500ms} or {@code 5s}.
     */
    static long durationProperty(final String name, final long defaultValueNs)
    {
        try
        {
            return SystemUtil.getDurationInNanos(name, defaultValueNs);
        }
        catch (final RuntimeException ex)
        {
            // Agrona's message lacks the property name, repeats it, or shows only part of the value.
            throw new IllegalArgumentException(
                name + " must be a duration such as 500ms or 5s: " + System.getProperty(name));
        }
    }

    /**
     * Boolean named by a sample property: Boolean.parseBoolean would take a misspelled "ture" for false.
     */
    static boolean booleanProperty(final String name, final boolean defaultValue)
    {
        final String value = System.getProperty(name);
        if (null == value)
        {
            return defaultValue;
        }
        if ("true".equalsIgnoreCase(value.trim()) || "false".equalsIgnoreCase(value.trim()))
        {
            return Boolean.parseBoolean(value.trim());
        }
        throw new IllegalArgumentException(name + " must be true or false: " + value);
    }
}
