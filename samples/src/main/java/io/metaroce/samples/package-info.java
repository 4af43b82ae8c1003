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
 * Runnable examples and operator tools: publisher, subscriber, ping and pong, throughput, and readers for the
 * driver's counters, error log and loss report.
 * <p>
 * {@link io.metaroce.samples.WireCodecDemo} encodes, validates and decodes the datagrams of one short connection and
 * fuzzes the validating reader: the job the README's first command runs until the media driver exists.
 */
package io.metaroce.samples;
