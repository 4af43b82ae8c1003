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

import io.metaroce.codec.WireDatagramReader;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.datapath.counters.AuthCounters;
import io.metaroce.datapath.security.ConnectionAuth;
import io.metaroce.datapath.stream.TerminationCause;

import java.io.IOException;

/**
 * What the engine needs of every connection to demultiplex datagrams to it, drive its timers and retire it. The
 * state is confined to the engine's thread.
 */
public abstract class Connection
{
    /**
     * What the connection needs of the engine and the socket group that carry it; connections of one group share it.
     */
    public final ConnectionHost host;

    /**
     * Id this end chose for the connection: the dstConnId of what the peer sends it, the srcConnId of what it sends.
     */
    public final int localId;

    /**
     * Planes the connection uses, planes 0 to planeCount - 1 of its transport: from its settings on a sender, from the
     * SETUP on a receiver.
     */
    public final int planeCount;

    final int destination;
    final long connEpoch;
    int peerId;
    int terminationCause = -1;
    ConnectionState state;
    int mtu;
    ConnectionAuth auth;
    private AuthCounters authCounters;

    Connection(
        final ConnectionHost host,
        final int localId,
        final int planeCount,
        final int destination,
        final long connEpoch,
        final ConnectionState initialState)
    {
        this.host = host;
        this.localId = localId;
        this.planeCount = planeCount;
        this.destination = destination;
        this.connEpoch = connEpoch;
        this.state = initialState;
    }

    /**
     * Id this end chose for the connection (the srcConnId of what it sends).
     *
     * @return the local connection id.
     */
    public final int localConnectionId()
    {
        return localId;
    }

    /**
     * Id the peer chose for the connection (0 on a sender until established).
     *
     * @return the peer connection id.
     */
    public final int peerConnectionId()
    {
        return peerId;
    }

    /**
     * Connection state.
     *
     * @return SETUP (SETUP_SENT, sender only), ESTABLISHED, CLOSING, CLOSED or FAILED (sender only).
     */
    public final ConnectionState state()
    {
        return state;
    }

    /**
     * Random nonce of this incarnation, which the sender chose and sent in SETUP.
     *
     * @return the connEpoch.
     */
    public final long connectionEpoch()
    {
        return connEpoch;
    }

    /**
     * The transport destination the connection sends to: on a sender the receiver's endpoints, on a receiver the
     * sender's reply address, which it learns on each plane a SETUP or datagram of the sender arrives on.
     *
     * @return the destination index.
     */
    public final int destination()
    {
        return destination;
    }

    /**
     * Negotiated largest datagram.
     *
     * @return bytes, 0 on a sender before establishment.
     */
    public final int mtu()
    {
        return mtu;
    }

    /**
     * Does a datagram with this srcConnId pass the epoch rule for this connection in its current state?
     *
     * @param srcConnId  the datagram's srcConnId.
     * @param templateId the datagram's message type (SBE template id).
     * @return true when it passes; the engine drops it as EPOCH_MISMATCH otherwise.
     */
    public abstract boolean acceptsSource(int srcConnId, int templateId);

    /**
     * Is this message type one the connection's role accepts [MR-ID-8]?
     *
     * @param templateId the datagram's message type (SBE template id).
     * @return true when the role accepts it; the engine drops it as WRONG_ROLE otherwise.
     */
    public abstract boolean acceptsTemplate(int templateId);

    /**
     * Handle a validated datagram addressed to this connection; the reader's decoders are wrapped around it.
     *
     * @param templateId the datagram's message type (SBE template id).
     * @param reader     the reader that decoded the datagram.
     * @param plane      the plane of the socket it arrived on.
     * @param nowNs      current time.
     */
    public abstract void onDatagram(int templateId, WireDatagramReader reader, int plane, long nowNs);

    /**
     * Run the timers that are due.
     *
     * @return work done.
     */
    abstract int onTimers(long nowNs);

    /**
     * Earliest time {@link #onTimers(long)} or the send path has work, for a caller that wants to sleep until then.
     */
    abstract long nextDeadlineNs(long nowNs);

    /**
     * The port of the transport's latency queue, opened now if it was not yet, for the first latency-class connection
     * of either end; 0 when the transport has none (a transport not asked for one, or one that could not open its
     * sockets, which is counted), and the connection then uses the bulk queue.
     *
     * @param host the connection's socket group.
     * @return the port or 0.
     */
    static int openLatencyQueue(final ConnectionHost host)
    {
        try
        {
            return host.transport().openLatencyQueue();
        }
        catch (final IOException ex)
        {
            host.onLatencyRouteFailed();
            return 0;
        }
    }

    /**
     * Free resources (counters, destinations) once the engine has dropped the connection.
     */
    abstract void release();

    /**
     * The engine shuts the connection down: it ends with cause SHUTDOWN, whatever it was doing.
     */
    public final void markShutDown()
    {
        terminationCause = TerminationCause.SHUTDOWN;
    }

    /**
     * Has the connection ended?
     *
     * @return true once it has a termination cause.
     */
    public final boolean isTerminated()
    {
        return terminationCause >= 0;
    }

    /**
     * Make the connection an authenticated one, before its first SETUP is sent or its SETUP_ACK answered: the
     * handshake rides in them, and once it completes every other datagram is sealed and opened.
     *
     * @param auth the connection's side of the handshake.
     */
    public final void authenticate(final ConnectionAuth auth)
    {
        if (null != this.auth)
        {
            throw new IllegalStateException("the connection is authenticated already");
        }
        try
        {
            authCounters = newAuthCounters();
        }
        catch (final IllegalStateException ex)
        {
            // counters full: the connection still authenticates, only its two gauges are not shown
            authCounters = null;
        }
        this.auth = auth;
    }

    /**
     * Allocate the authentication counters of the connection, beside its own.
     *
     * @return the counters.
     */
    abstract AuthCounters newAuthCounters();

    /**
     * Show the authentication's state and key epoch in its counters; from the connection's timers.
     */
    final void refreshAuthCounters()
    {
        final AuthCounters authCounters = this.authCounters;
        if (null != authCounters)
        {
            final ConnectionAuth keyed = protection();
            if (null == keyed)
            {
                authCounters.update(AuthCounters.HANDSHAKE, 0);
            }
            else
            {
                authCounters.update(keyed.encrypts() ? AuthCounters.ENCRYPTED : AuthCounters.INTEGRITY,
                    keyed.sealer().epoch());
            }
        }
    }

    /**
     * Free the authentication counters, with the connection's own.
     */
    final void closeAuthCounters()
    {
        if (null != authCounters)
        {
            authCounters.close();
            authCounters = null;
        }
    }

    /**
     * The keys that protect the connection's datagrams, once its handshake is complete.
     *
     * @return the keyed authentication, or null for an unauthenticated connection or one whose handshake is not done.
     */
    public final ConnectionAuth protection()
    {
        final ConnectionAuth auth = this.auth;
        return null != auth && auth.isKeyed() ? auth : null;
    }

    /**
     * The long-term public key the connection's peer proves (or must prove) in its handshake.
     *
     * @return a copy, or null for an unauthenticated connection.
     */
    public final byte[] peerKey()
    {
        final ConnectionAuth auth = this.auth;
        return null == auth ? null : auth.peerKey();
    }

    /**
     * Whether the connection authenticates, keyed or not yet.
     *
     * @return true for an authenticated connection.
     */
    public final boolean isAuthenticated()
    {
        return null != auth;
    }
}
