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

import io.metaroce.client.config.PropertyNames;

import java.util.Collection;
import java.util.List;

/**
 * The property names of the samples and tools ({@code metaroce.sample.*}) and of the demos ({@code metaroce.demo.*})
 * for the {@link io.metaroce.client.config.PropertyRegistry}.
 */
public final class SamplePropertyNames implements PropertyNames
{
    /**
     * {@inheritDoc}
     */
    public String component()
    {
        return "samples";
    }

    /**
     * {@inheritDoc}
     */
    public Collection<String> names()
    {
        return List.of(
            "metaroce.sample.channel",
            "metaroce.sample.stream.id",
            "metaroce.sample.pong.stream.id",
            "metaroce.sample.message.length",
            "metaroce.sample.messages",
            "metaroce.sample.subscriber.messages",
            "metaroce.sample.rate",
            "metaroce.sample.fragment.limit",
            "metaroce.sample.warmup",
            "metaroce.sample.duration",
            "metaroce.sample.exclusive",
            "metaroce.sample.ping.idle",
            "metaroce.sample.pong.idle",
            "metaroce.sample.publisher.idle",
            "metaroce.sample.subscriber.idle",
            "metaroce.demo.duration",
            "metaroce.demo.planes",
            "metaroce.demo.loss",
            "metaroce.demo.down.plane",
            "metaroce.demo.down.at",
            "metaroce.demo.down.for",
            "metaroce.demo.message.length",
            "metaroce.demo.throughput.duration",
            "metaroce.demo.latency.duration",
            "metaroce.demo.fuzz.count",
            "metaroce.demo.seed");
    }
}
