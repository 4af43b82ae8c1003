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
/**
 * The names of the {@code metaroce.*} settings a process knows, and their check at start. Each module contributes
 * the names it reads through a {@link io.metaroce.client.config.PropertyNames} provider found by
 * {@link java.util.ServiceLoader} ({@code META-INF/services/io.metaroce.client.config.PropertyNames}), so a process
 * knows exactly the names of the modules on its class path, whichever class it loads first.
 * {@link io.metaroce.client.config.PropertyRegistry} refuses, at the start of a client or a driver, a
 * {@code metaroce.*} system property or properties-file key that no provider knows, naming it and the nearest known
 * name, and remembers which properties file set which property.
 */
package io.metaroce.client.config;
