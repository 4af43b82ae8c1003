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
package io.metaroce.datapath.sim;

import org.agrona.DirectBuffer;

/**
 * Sees every datagram a {@link SimulatedFabric} carries, for invariant checks and traces. Called synchronously on the
 * simulation thread; the buffer is only valid during the call.
 */
public interface PacketObserver
{
    /**
     * A node handed a datagram to the fabric.
     *
     * @param nowNs    virtual time.
     * @param srcNode  sending node.
     * @param dstNode  addressed node.
     * @param plane    plane.
     * @param entropy  entropy value (route) within the plane.
     * @param buffer   holding the datagram.
     * @param offset   of the datagram.
     * @param length   of the datagram.
     */
    void onSend(
        long nowNs, int srcNode, int dstNode, int plane, int entropy, DirectBuffer buffer, int offset, int length);

    /**
     * The fabric dropped a datagram.
     *
     * @param nowNs   virtual time.
     * @param srcNode sending node.
     * @param dstNode addressed node.
     * @param plane   plane.
     * @param reason  a {@link SimulatedFabric} drop reason code.
     */
    void onDrop(long nowNs, int srcNode, int dstNode, int plane, int reason);

    /**
     * The fabric put a datagram in the addressed node's inbound queue, from which its transport hands it to the
     * engine; a duplicated datagram is delivered twice.
     *
     * @param nowNs   virtual time.
     * @param srcNode sending node.
     * @param dstNode addressed node.
     * @param plane   plane.
     * @param buffer  holding the datagram.
     * @param offset  of the datagram.
     * @param length  of the datagram.
     */
    default void onDeliver(
        final long nowNs,
        final int srcNode,
        final int dstNode,
        final int plane,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
    }
}
