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

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * Datagram I/O of one engine over P planes: one receive socket per plane (all bound to the same
 * {@link #localPort()}, the port peers reply to) and, per destination, one send socket per (plane, entropy value),
 * each with its own source port, so that ECMP fabrics hash the entropy values of a plane onto different routes.
 * <p>
 * <b>Destinations</b> are small integer ids. A sender's destination (the receiver's address on every plane) is
 * registered by the owner of the transport with {@link #addDestination}, before a connection uses it. A
 * receiver learns its reply destinations from received datagrams: {@link #newReplyDestination()} creates an empty
 * one and {@link #learnReplyAddress(int, int, int)}, called while a datagram is being handled, records that datagram's
 * source host on its plane with the peer's reply port. Control messages go out of the receive sockets
 * ({@link #sendControl}), so a peer's control traffic always comes from its announced port.
 * <p>
 * <b>Sending never blocks and never throws</b>: a socket that accepts nothing (a plane whose peer link is down
 * makes a non-blocking send return 0) yields {@link #BACK_PRESSURED}, a socket error yields {@link #SEND_ERROR}; the
 * caller counts both and treats the datagram as lost. DATA is sent with a gathering write of header and payload, so
 * payload bytes are not copied on the way out when the payload buffer wraps a {@link java.nio.ByteBuffer}.
 * <p>
 * <b>Buffers handed to {@link #send}</b>: when a header or payload {@link DirectBuffer} wraps a
 * {@link java.nio.ByteBuffer}, the transport may set that ByteBuffer's position and limit to write from it, so its
 * owner hands the sending thread ByteBuffers that nobody else positions (a publication keeps one slice per term for
 * its sender, as Aeron's {@code sliceTerms} does). A header and a payload may be two regions of one ByteBuffer: the
 * transport positions a view of its own for each. Other buffers are copied.
 * <p>
 * <b>Batching</b>: an implementation may hold datagrams accepted by {@link #send}, {@link #sendControl} and
 * {@link #sendToSource} until {@link #flush()}, which the engine calls at the end of every duty cycle; a result of
 * {@link #SENT} then means "queued". An implementation that adds bytes to each datagram (an authentication tag, an
 * encapsulation) says how many in {@link #datagramOverhead()}, and the engine keeps its datagrams that much below
 * the MTU.
 * <p>
 * Not thread safe: one transport per agent thread. Methods other than {@code close} and {@link #addDestination}
 * allocate nothing in steady state.
 */
public interface PacketTransport extends AutoCloseable
{
    /**
     * The datagram was handed to the network.
     */
    int SENT = 1;

    /**
     * The socket accepted nothing (would block): the datagram is dropped.
     */
    int BACK_PRESSURED = 0;

    /**
     * The socket reported an error: the datagram is dropped.
     */
    int SEND_ERROR = -1;

    /**
     * The destination has no address on that plane (or does not exist): nothing was sent.
     */
    int NO_ROUTE = -2;

    /**
     * The bulk queue: the receive sockets at {@link #localPort()}, which every transport has.
     */
    int BULK_QUEUE = 0;

    /**
     * The latency queue: the receive sockets at {@link #latencyPort()}, when the transport has them.
     */
    int LATENCY_QUEUE = 1;

    /**
     * Number of planes.
     *
     * @return P.
     */
    int planeCount();

    /**
     * Number of send sockets (entropy values) per plane and destination.
     *
     * @return E.
     */
    int entropyCount();

    /**
     * Port of the receive sockets, the same on every plane: the replyPort a sender announces in SETUP.
     *
     * @return the local port.
     */
    int localPort();

    /**
     * Port of the latency queue's receive sockets, the same on every plane, which a latency-class connection
     * announces instead of {@link #localPort()} and a receiver names in its SETUP_ACK (specification section 3.4).
     *
     * @return the port, or 0 until {@link #openLatencyQueue()} opened the queue.
     */
    default int latencyPort()
    {
        return 0;
    }

    /**
     * Open the latency queue, once: the engine asks when its first latency-class connection needs it, so that a
     * transport that carries only bulk connections never reads an extra socket. Not on the hot path: it opens
     * sockets.
     *
     * @return {@link #latencyPort()}, or 0 for a transport that keeps no latency queue.
     * @throws IOException when its sockets cannot be opened.
     */
    default int openLatencyQueue() throws IOException
    {
        return 0;
    }

    /**
     * Local address of a plane's receive socket.
     *
     * @param plane 0 to {@link #planeCount()} - 1.
     * @return the address.
     */
    InetAddress planeAddress(int plane);

    /**
     * Bytes this transport adds to every datagram on the wire beyond what it is given (0 for plain UDP).
     *
     * @return the overhead in bytes.
     */
    int datagramOverhead();

    /**
     * Receive errors seen so far (a socket that raised on read); the datagram is lost and the transport goes on.
     *
     * @return the count.
     */
    long receiveErrors();

    /**
     * The socket error of the most recent send that yielded {@link #SEND_ERROR}: its message carries the system's
     * reason (the errno's text), for the error log.
     *
     * @return the error, or null when no send has failed or the transport keeps none.
     */
    default IOException lastSendError()
    {
        return null;
    }

    /**
     * System calls made to send so far, failed ones included: one per datagram for a transport that sends them one at
     * a time, one per batch or segmented message for a batching one. With {@link #sentDatagrams()} it shows how many
     * datagrams a call carries. 0 for a transport that does not count.
     *
     * @return the count.
     */
    default long sendCalls()
    {
        return 0;
    }

    /**
     * Datagrams handed to the network so far, each segment of a segmented message counted.
     *
     * @return the count.
     */
    default long sentDatagrams()
    {
        return 0;
    }

    /**
     * Datagrams a batching transport accepted ({@link #SENT} as queued) but the network did not take at the flush
     * (a full socket buffer, a socket error): lost, as on a lossy link, for the protocol to recover. Datagrams refused
     * at once are not counted here: {@link #send} returned their result.
     *
     * @return the count.
     */
    default long sendDrops()
    {
        return 0;
    }

    /**
     * System calls made to receive so far, the ones that found nothing included, so that with
     * {@link #receivedDatagrams()} it shows how many datagrams a call reads. 0 for a transport that does not count.
     *
     * @return the count.
     */
    default long receiveCalls()
    {
        return 0;
    }

    /**
     * Datagrams read from the network so far, each datagram of a coalesced run counted, dropped ones included.
     *
     * @return the count.
     */
    default long receivedDatagrams()
    {
        return 0;
    }

    /**
     * Datagrams read from the latency queue so far ({@link #pollLatency}), counted in {@link #receivedDatagrams()}
     * too.
     *
     * @return the count; 0 for a transport without a latency queue.
     */
    default long latencyDatagrams()
    {
        return 0;
    }

    /**
     * Register a sender destination: the receiver's address (its receive port) on every plane, opening whatever the
     * implementation needs to reach it (send sockets, one per plane and entropy value, for plain UDP). Registering
     * the same addresses again may return the same id (publications to one receiver share its sockets); every
     * registration is released once with {@link #releaseDestination(int)}. Not on the hot path: called when a
     * publication starts.
     *
     * @param addressPerPlane the receiver's socket address on plane 0, 1, ...; as many as {@link #planeCount()}.
     * @return the destination id.
     * @throws IOException when a socket cannot be opened.
     */
    int addDestination(InetSocketAddress... addressPerPlane) throws IOException;

    /**
     * Hand every queued datagram to the network. The engine calls it at the end of each duty cycle; a transport that
     * sends at once returns 0.
     *
     * @return datagrams handed to the network by this call.
     */
    int flush();

    /**
     * Receive up to {@code limit} datagrams, handing each to the handler.
     *
     * @param handler told of each datagram.
     * @param limit   most datagrams to receive.
     * @return datagrams received, dropped ones included.
     */
    int poll(PacketHandler handler, int limit);

    /**
     * Receive up to {@code limit} datagrams from the latency queue, handing each to the handler; the engine calls it
     * before {@link #poll} on every duty cycle. A datagram read here is answered ({@link #sendToSource}) from the
     * latency queue's socket.
     *
     * @param handler told of each datagram.
     * @param limit   most datagrams to receive.
     * @return datagrams received, dropped ones included; 0 when the transport has no latency queue.
     */
    default int pollLatency(final PacketHandler handler, final int limit)
    {
        return 0;
    }

    /**
     * Register the hosts of a sender destination at another port: the receiver's latency queue, which its SETUP_ACK
     * named. Like {@link #addDestination}, it opens what the implementation needs (send sockets), is not on the hot
     * path, and is released once with {@link #releaseDestination(int)}.
     *
     * @param destination a sender destination of this transport.
     * @param port        the port to reach its hosts at, 1 to 65535.
     * @return the new destination's id.
     * @throws IOException when a socket cannot be opened, the destination is not a sender destination, or the
     *                     transport cannot reach another port of a destination.
     */
    default int addDestination(final int destination, final int port) throws IOException
    {
        throw new IOException("this transport does not reach a destination at another port");
    }

    /**
     * Send a datagram made of a header and an optional payload. The transport copies the header before it returns,
     * but may read the payload as late as the next {@link #flush()}: its bytes stay unchanged until then (a sender's
     * payload is log memory that stays unchanged until acknowledged).
     *
     * @param destination   id of the destination.
     * @param plane         plane to send on.
     * @param entropy       entropy value (send socket) within the plane; receivers answering pass 0.
     * @param header        buffer holding the header.
     * @param headerOffset  of the header.
     * @param headerLength  of the header.
     * @param payload       buffer holding the payload, or null.
     * @param payloadOffset of the payload.
     * @param payloadLength of the payload, 0 for none.
     * @return {@link #SENT}, {@link #BACK_PRESSURED}, {@link #SEND_ERROR} or {@link #NO_ROUTE}.
     */
    int send(
        int destination,
        int plane,
        int entropy,
        DirectBuffer header,
        int headerOffset,
        int headerLength,
        DirectBuffer payload,
        int payloadOffset,
        int payloadLength);

    /**
     * Send a control message to a destination from the plane's receive socket, whose port is {@link #localPort()}:
     * the port a sender announces as replyPort, so that its control messages come from the address its peer answers
     * to and a receiver can tell them from a stranger's (specification 2.1, 5.4).
     *
     * @param destination id of the destination.
     * @param plane       plane to send on.
     * @param buffer      holding the message.
     * @param offset      of the message.
     * @param length      of the message.
     * @return as {@link #send}.
     */
    int sendControl(int destination, int plane, DirectBuffer buffer, int offset, int length);

    /**
     * Send a control message from a queue's socket on the plane: {@link #LATENCY_QUEUE} for a latency-class
     * connection, whose announced reply port is {@link #latencyPort()}; a transport without that queue sends it as
     * {@link #sendControl(int, int, DirectBuffer, int, int)} does.
     *
     * @param queue       {@link #BULK_QUEUE} or {@link #LATENCY_QUEUE}.
     * @param destination id of the destination.
     * @param plane       plane to send on.
     * @param buffer      holding the message.
     * @param offset      of the message.
     * @param length      of the message.
     * @return as {@link #send}.
     */
    default int sendControl(
        final int queue,
        final int destination,
        final int plane,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        return sendControl(destination, plane, buffer, offset, length);
    }

    /**
     * Answer the datagram being handled, from the socket it arrived on (the receive socket of its plane, or that of
     * the latency queue), to its source host: at {@code port}, or at its own source port when {@code port} is 0.
     * Valid only inside {@link PacketHandler#onDatagram}.
     *
     * @param port   destination port, or 0 for the datagram's source port.
     * @param buffer holding the answer.
     * @param offset of the answer.
     * @param length of the answer.
     * @return as {@link #send}.
     */
    int sendToSource(int port, DirectBuffer buffer, int offset, int length);

    /**
     * Create an empty reply destination, to be filled by {@link #learnReplyAddress(int, int, int)}.
     *
     * @return its id.
     */
    int newReplyDestination();

    /**
     * Record the source host of the datagram being handled as the address of a reply destination on the plane the
     * datagram arrived on, at the given port. Valid only inside {@link PacketHandler#onDatagram}.
     *
     * @param destination a reply destination.
     * @param plane       the plane the datagram arrived on.
     * @param port        the peer's reply port.
     * @return true when recorded.
     */
    boolean learnReplyAddress(int destination, int plane, int port);

    /**
     * Does the datagram being handled come from a destination's address on that plane, host and port? A receiver
     * learns a sender's address as the sender's host with its announced replyPort, so only that sender's control
     * socket matches. Valid only inside {@link PacketHandler#onDatagram}.
     *
     * @param destination a destination.
     * @param plane       the plane the datagram arrived on.
     * @return true when the destination has an address on that plane and the datagram's source equals it.
     */
    boolean isFromPeer(int destination, int plane);

    /**
     * A key of the source host (its address, not its port) of the datagram being handled, the same for every
     * datagram from one host on any socket of the transport: the engine bounds what one host may make it hold by it.
     * An IPv4 address is its own key; an IPv6 address is hashed, so two IPv6 hosts may share a key, and then share
     * their bounds. Valid only inside {@link PacketHandler#onDatagram}.
     *
     * @return the key, never 0 for a datagram being handled.
     */
    long sourceHostKey();

    /**
     * The address a destination has on a plane: a sender destination's receiver, or the source host and control port
     * a reply destination learnt ({@link #learnReplyAddress(int, int, int)}). Named in logs and in the identity of the
     * images a connection places into, never used to route.
     *
     * @param destination a destination.
     * @param plane       a plane.
     * @return the address, or null when the destination has none on the plane or the transport keeps no addresses.
     */
    default InetSocketAddress destinationAddress(final int destination, final int plane)
    {
        return null;
    }

    /**
     * Does a destination have an address on a plane?
     *
     * @param destination a destination.
     * @param plane       a plane.
     * @return true when {@link #send} can reach it there.
     */
    boolean hasRoute(int destination, int plane);

    /**
     * Release one registration of a destination; the last release frees it and its sockets.
     *
     * @param destination the id.
     */
    void releaseDestination(int destination);

    /**
     * Close every socket.
     */
    @Override
    void close();
}
