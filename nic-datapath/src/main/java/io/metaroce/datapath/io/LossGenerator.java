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
package io.metaroce.datapath.io;

import org.agrona.DirectBuffer;

/**
 * An injected drop stage on the receive side of a transport, for tests and fault drills: a datagram it selects is
 * discarded as if the network had lost it, before any validation.
 */
@FunctionalInterface
public interface LossGenerator
{
    /**
     * Should this datagram be dropped?
     *
     * @param buffer holding the datagram.
     * @param offset of its first byte.
     * @param length of the datagram.
     * @param plane  it arrived on.
     * @return true to drop it.
     */
    boolean shouldDrop(DirectBuffer buffer, int offset, int length, int plane);
}
