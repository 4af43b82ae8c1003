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
 * The client API: connect to a media driver ({@link io.metaroce.client.MetaRoce}), publish
 * ({@link io.metaroce.client.ConcurrentPublication}, {@link io.metaroce.client.ExclusivePublication}), subscribe
 * ({@link io.metaroce.client.Subscription}, {@link io.metaroce.client.Image}) and count
 * ({@link io.metaroce.client.Counter}).
 * <p>
 * Contract: commands (add, remove, close) go through the driver and are serialised by the client lock; they block
 * until the driver answers or the driver timeout passes, and raise typed exceptions. The asynchronous adds
 * ({@code asyncAddPublication}, {@code asyncAddSubscription}, ...) return a registration id without waiting; the
 * matching {@code get*} answers null until the driver has answered. Data never goes through the
 * driver: {@code offer}, {@code tryClaim} and {@code poll} read and write the shared-memory log buffers directly,
 * never block, never allocate and report flow control by return code. Publications, subscriptions and images are
 * closed when their client closes or times out; a closed publication returns
 * {@link io.metaroce.client.Publication#CLOSED} and a closed subscription polls nothing.
 * <p>
 * Channels are {@code metaroce:<media>?<key>=<value>|...} URIs ({@link io.metaroce.client.ChannelUri}); this release
 * carries {@code metaroce:ipc}. The shared-memory layouts both the client and the driver use live in the sub-packages
 * {@code cnc}, {@code logbuffer} and {@code status}; the control protocol in {@code command}; the registry of known
 * property names and the start-up checks in {@code config}.
 */
package io.metaroce.client;
