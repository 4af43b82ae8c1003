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
package io.metaroce.systemtest.compliance;

import io.metaroce.codec.wire.TrafficClass;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * An implementation of the MetaRoCE wire protocol under test, as the compliance suite sees it: its UDP receive
 * address per plane, a way to make it subscribe to and publish streams, what its subscribers read, and its drop
 * counters by the specification's reason names (section 16). The tests reach it only through this interface and the
 * wire, so the same tests run against the transport engine ({@link EnginePeerUnderTest}) and against an embedded
 * media driver with {@code metaroce:udp} channels ({@link DriverPeerUnderTest}). Methods are called from the test
 * thread; implementations hand them to their own threads as needed.
 */
interface PeerUnderTest extends AutoCloseable
{
    /**
     * Planes the target listens on.
     *
     * @return the plane count.
     */
    int planeCount();

    /**
     * Where the target receives datagrams on a plane (the receiver port of section 2.1, also its replyPort).
     *
     * @param plane a plane index.
     * @return the socket address.
     */
    InetSocketAddress address(int plane);

    /**
     * How {@link PublicationUnderTest#streamEnds()} shows a stream opening that ended for a cause: the cause's name
     * where the target exposes causes (the engine), otherwise the sender stream's final state of the specification
     * ({@code CLOSED} or {@code FAILED}, section 15.3), which is all a media driver shows.
     *
     * @param cause a {@code TerminationCause} name.
     * @return the entry to expect.
     */
    default String streamEnd(final String cause)
    {
        return cause;
    }

    /**
     * Whether the target has a socket receiving on a port of a plane's address (where a peer's answers reach it).
     *
     * @param plane a plane index.
     * @param port  a UDP port.
     * @return true when it receives there.
     */
    default boolean receivesOn(final int plane, final int port)
    {
        return address(plane).getPort() == port;
    }

    /**
     * Subscribe to a stream: STREAM_OPENs for it get an image from now on.
     *
     * @param streamId the stream.
     */
    void subscribe(int streamId);

    /**
     * Make the stream's subscriber read, or stop reading (a slow subscriber whose consumer position stays, so that
     * its images' window limits stay too, section 6.5). Subscribers read from the start.
     *
     * @param streamId  the stream.
     * @param consuming whether the subscriber reads.
     */
    void consume(int streamId, boolean consuming);

    /**
     * Messages the target delivered in order on a stream, reassembled from their fragments.
     *
     * @param streamId the stream.
     * @return a copy of the delivered messages.
     */
    List<byte[]> delivered(int streamId);

    /**
     * Images currently available for a stream: its receiver streams that are open (section 15.4).
     *
     * @param streamId the stream.
     * @return the count.
     */
    int imageCount(int streamId);

    /**
     * Position at which an image of the stream reached end of stream, or -1.
     *
     * @param streamId the stream.
     * @return the position.
     */
    long endOfStreamPosition(int streamId);

    /**
     * Publish a stream towards a peer. Publications to the same peer share a connection when they can (section 5.1).
     *
     * @param streamId  the stream.
     * @param sessionId the session, where the target lets the caller choose it; a media driver assigns its own.
     *                  Tests read the session from the target's STREAM_OPEN.
     * @param peer      the peer's receive address on every plane of the target.
     * @return the publication.
     */
    default PublicationUnderTest publish(final int streamId, final int sessionId, final InetSocketAddress... peer)
    {
        return publish(streamId, sessionId, TrafficClass.BULK, peer);
    }

    /**
     * Publish a stream of a traffic class towards a peer (section 3.4): a LOW_LATENCY publication goes on a
     * connection of that class, which asks for the peer's latency queue (section 3.4.1); publications of one class
     * to the same peer share a connection. Every target keeps a latency queue, at a port of its own.
     *
     * @param streamId     the stream.
     * @param sessionId    the session, where the target lets the caller choose it.
     * @param trafficClass {@link TrafficClass#BULK} or {@link TrafficClass#LOW_LATENCY}.
     * @param peer         the peer's receive address on every plane of the target.
     * @return the publication.
     */
    PublicationUnderTest publish(int streamId, int sessionId, TrafficClass trafficClass, InetSocketAddress... peer);

    /**
     * Datagrams dropped for a reason.
     *
     * @param reason a reason name of section 16.2 or 16.3, for example {@code "DUPLICATE"}.
     * @return the count.
     */
    long drops(String reason);

    /**
     * Replace the allow-list of a target started with {@link TargetSettings#authentication}, as an operator would
     * while it runs: it then trusts only these keys and closes every keyed connection with a key the list no longer
     * holds (MR-SEC-4, MR-SEC-11). The engine target uses the new list before this returns; the driver target's
     * conductor reads the rewritten allow-list file at its next check, within about a second.
     *
     * @param trustedKeys the X25519 public keys the target trusts from now on.
     */
    void trust(byte[]... trustedKeys);

    /**
     * Stop the target and free its sockets and threads.
     */
    void close();

    /**
     * A publication of the target.
     */
    interface PublicationUnderTest
    {
        /**
         * Append a message.
         *
         * @param message the bytes.
         * @return true when appended, false when the publication is back pressured.
         */
        boolean offer(byte[] message);

        /**
         * Close the publication: the rest of the stream is sent, then STREAM_CLOSE.
         */
        void close();

        /**
         * Ends of the publication's stream openings, in order: {@code "NORMAL"} or a failure cause such as
         * {@code "RETRANSMIT_LIMIT"}, as {@link PeerUnderTest#streamEnd(String)} maps them. A failed opening is
         * followed by a new one, on a new incarnation of the connection when the connection failed.
         *
         * @return a copy of the list.
         */
        List<String> streamEnds();
    }
}
