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

    private SampleConfiguration()
    {
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
