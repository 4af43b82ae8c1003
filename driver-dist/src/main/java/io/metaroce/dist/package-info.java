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
 * The deployable driver: {@link io.metaroce.dist.ToolLauncher}, the main class of {@code metaroce-driver.jar}, runs a
 * media driver or any tool of the jar by name; the module also builds the distribution archive (the jar, a launcher
 * script, an example properties file, example systemd units for the driver and its exporter, a Grafana dashboard and
 * Prometheus rules). Neither is a library: the module is not published, and it is the one place that chooses an
 * SLF4J provider (the no-operation one) for the process.
 */
package io.metaroce.dist;
