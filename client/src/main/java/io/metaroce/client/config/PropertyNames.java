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
package io.metaroce.client.config;

import java.util.Collection;

/**
 * A module's contribution to the {@link PropertyRegistry}: every {@code metaroce.*} property name the module reads.
 * Implementations are listed in {@code META-INF/services/io.metaroce.client.config.PropertyNames} and need a public
 * no-argument constructor.
 */
public interface PropertyNames
{
    /**
     * The component whose names these are, for messages: {@code client}, {@code media driver}, ...
     *
     * @return a short name.
     */
    String component();

    /**
     * Every property name the component reads, each starting with {@code metaroce.}.
     *
     * @return the names.
     */
    Collection<String> names();
}
