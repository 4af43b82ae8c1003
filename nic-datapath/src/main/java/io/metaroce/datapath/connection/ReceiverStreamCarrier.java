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
package io.metaroce.datapath.connection;

import io.metaroce.codec.wire.StreamCode;
import io.metaroce.datapath.stream.ReceiverStreamSet;

import java.net.InetSocketAddress;

/**
 * A {@link ReceiverConnection} as the carrier of its {@link ReceiverStreamSet}: stream messages go out through the
 * connection's {@link ReceiverEncoder} (its reply planes and amplification bound), a message that answers no datagram
 * on the plane of the connection's newest DATA or PROBE; drops and reply limits are the engine's; the bounds per peer
 * are counted against the connection in the engine's {@code PeerBounds}. Kept apart from the connection so that these
 * methods stay off its public surface.
 * <p>
 * Owned by the engine's thread, like its connection.
 */
final class ReceiverStreamCarrier implements ReceiverStreamSet.Carrier
{
    private final ReceiverConnection connection;
    private final ConnectionHost host;
    private final ReceiverEncoder encoder;
    private final ReceiverAckState ack;

    /**
     * The carrier of one connection's streams.
     *
     * @param connection the connection.
     * @param host       the engine and socket group that carry it.
     * @param encoder    the connection's encoder.
     * @param ack        the connection's acknowledgement state, whose trigger plane answers go on.
     */
    ReceiverStreamCarrier(
        final ReceiverConnection connection,
        final ConnectionHost host,
        final ReceiverEncoder encoder,
        final ReceiverAckState ack)
    {
        this.connection = connection;
        this.host = host;
        this.encoder = encoder;
        this.ack = ack;
    }

    /**
     * {@inheritDoc}
     */
    public ReceiverConnection connection()
    {
        return connection;
    }

    /**
     * {@inheritDoc}
     */
    public InetSocketAddress peerAddress()
    {
        return connection.peerAddress();
    }

    /**
     * {@inheritDoc}
     */
    public int replyPlane()
    {
        return encoder.routedPlane(ack.plane);
    }

    /**
     * {@inheritDoc}
     */
    public boolean isFromPeer(final int plane)
    {
        return encoder.isFromPeer(plane);
    }

    /**
     * {@inheritDoc}
     */
    public void drop(final int reason)
    {
        host.drop(reason);
    }

    /**
     * {@inheritDoc}
     */
    public boolean tryRejectReply(final long nowNs)
    {
        return host.tryRejectReply(connection.peerId, nowNs);
    }

    /**
     * {@inheritDoc}
     */
    public int admitStream(final int keptStreams, final long keptImageBytes, final int termLength)
    {
        return host.admitStream(connection, keptStreams, keptImageBytes, termLength);
    }

    /**
     * {@inheritDoc}
     */
    public void onStreamKept(final int termLength)
    {
        host.onStreamKept(connection, termLength);
    }

    /**
     * {@inheritDoc}
     */
    public void onStreamReleased(final int termLength)
    {
        host.onStreamReleased(connection, termLength);
    }

    /**
     * {@inheritDoc}
     */
    public void sendStreamAck(
        final int plane,
        final int streamId,
        final int sessionId,
        final int streamRef,
        final StreamCode code,
        final long retryAfterNs,
        final int detail,
        final long startPosition,
        final long windowLimit,
        final long nowNs)
    {
        encoder.streamAck(plane, nowNs, streamId, sessionId, streamRef, code, retryAfterNs, detail, startPosition,
            windowLimit);
    }

    /**
     * {@inheritDoc}
     */
    public void sendStreamWindows(
        final int count, final int[] streamIds, final int[] sessionIds, final long[] windowLimits, final long nowNs)
    {
        encoder.streamWindow(ack.plane, nowNs, count, streamIds, sessionIds, windowLimits);
    }
}
