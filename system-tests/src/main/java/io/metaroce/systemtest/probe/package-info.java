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
 * A UDP probe ({@link io.metaroce.systemtest.probe.UdpProbe}) run as a JVM inside a topology's namespaces to check
 * its planes without the MetaRoCE driver: a paced sender that never blocks in a send and a selector-driven receiver
 * that counts, and optionally echoes, what arrives. Datagrams follow
 * {@link io.metaroce.systemtest.probe.ProbeDatagramDescriptor}.
 * <p>
 * Contract: output is {@code key=value} lines ({@code READY}, {@code PROGRESS}, {@code RESULT}, {@code ERROR},
 * {@code DONE}) that {@link io.metaroce.systemtest.netns.KeyValueLine} parses; a probe stops at the end of its
 * standard input or after its maximum run time, so it never outlives its harness for long. The loops allocate
 * nothing of their own per datagram sent or received (a failed send records its message) and never spin: the
 * receiver waits in a selector, the sender parks between one-millisecond ticks.
 */
package io.metaroce.systemtest.probe;
