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
package io.metaroce.driver;

import io.metaroce.datapath.io.PacketHandler;
import io.metaroce.datapath.io.PacketTransport;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The {@link PacketTransport} an endpoint's socket group sends through: the endpoint's transport (whatever its
 * factory opened), plus a report
 * to the driver's distinct error log when sends on a plane start to fail ({@link PacketTransport#SEND_ERROR}: the
 * socket raised an error, for example a link down, {@code ENETUNREACH}, {@code EPERM} from a firewall or a
 * {@code ECONNREFUSED} left by an ICMP port unreachable). The engine still counts every failed datagram
 * ({@code snd-errors}); the error log gets one entry per plane of the endpoint, naming the plane, its local address
 * and the endpoint, logged again each time the plane goes from sending to failing, so the distinct log counts the
 * episodes. Replies to a datagram's source (which plane is not known here) have one entry of their own.
 * <p>
 * A transport returns the result code only: the exception the socket raised is not exposed, so the entry says that
 * the socket reported an error without its message.
 * <p>
 * Allocation: the exception logged for a plane is built the first time that plane fails and reused for every later
 * episode; steady-state sending, failing or not, allocates nothing. Confined, like the transport, to the agent
 * thread that runs the endpoint.
 */
final class ErrorLoggingTransport implements PacketTransport
{
    private final PacketTransport transport;
    private final ErrorHandler errorHandler;
    private final String endpointLabel;
    private final boolean[] isPlaneFailing;
    private final IOException[] planeErrors;
    private boolean isReplyFailing;
    private IOException replyError;

    ErrorLoggingTransport(final PacketTransport transport, final String endpointLabel, final ErrorHandler errorHandler)
    {
        this.transport = transport;
        this.endpointLabel = endpointLabel;
        this.errorHandler = errorHandler;
        this.isPlaneFailing = new boolean[transport.planeCount()];
        this.planeErrors = new IOException[transport.planeCount()];
    }

    /**
     * {@inheritDoc}
     */
    public int planeCount()
    {
        return transport.planeCount();
    }

    /**
     * {@inheritDoc}
     */
    public int entropyCount()
    {
        return transport.entropyCount();
    }

    /**
     * {@inheritDoc}
     */
    public int localPort()
    {
        return transport.localPort();
    }

    /**
     * {@inheritDoc}
     */
    public int poll(final PacketHandler handler, final int limit)
    {
        return transport.poll(handler, limit);
    }

    /**
     * {@inheritDoc}
     */
    public int latencyPort()
    {
        return transport.latencyPort();
    }

    /**
     * {@inheritDoc}
     */
    public int openLatencyQueue() throws IOException
    {
        return transport.openLatencyQueue();
    }

    /**
     * {@inheritDoc}
     */
    public int pollLatency(final PacketHandler handler, final int limit)
    {
        return transport.pollLatency(handler, limit);
    }

    /**
     * {@inheritDoc}
     */
    public int addDestination(final int destination, final int port) throws IOException
    {
        return transport.addDestination(destination, port);
    }

    /**
     * {@inheritDoc}
     */
    public int sendControl(
        final int queue,
        final int destination,
        final int plane,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        return onPlaneSendResult(plane, transport.sendControl(queue, destination, plane, buffer, offset, length));
    }

    /**
     * {@inheritDoc}
     */
    public int send(
        final int destination,
        final int plane,
        final int entropy,
        final DirectBuffer header,
        final int headerOffset,
        final int headerLength,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        return onPlaneSendResult(plane, transport.send(
            destination, plane, entropy, header, headerOffset, headerLength, payload, payloadOffset, payloadLength));
    }

    /**
     * {@inheritDoc}
     */
    public int sendControl(
        final int destination, final int plane, final DirectBuffer buffer, final int offset, final int length)
    {
        return onPlaneSendResult(plane, transport.sendControl(destination, plane, buffer, offset, length));
    }

    /**
     * {@inheritDoc}
     */
    public int sendToSource(final int port, final DirectBuffer buffer, final int offset, final int length)
    {
        final int result = transport.sendToSource(port, buffer, offset, length);
        if (SENT == result)
        {
            isReplyFailing = false;
        }
        else if (SEND_ERROR == result && !isReplyFailing)
        {
            isReplyFailing = true;
            if (null == replyError)
            {
                replyError = new IOException("send failed: a reply to a datagram's source on " + endpointLabel +
                    ": the socket reported an error (" + transport.getClass().getSimpleName() +
                    " does not expose its message)");
            }
            errorHandler.onError(replyError);
        }

        return result;
    }

    /**
     * {@inheritDoc}
     */
    public int newReplyDestination()
    {
        return transport.newReplyDestination();
    }

    /**
     * {@inheritDoc}
     */
    public boolean learnReplyAddress(final int destination, final int plane, final int port)
    {
        return transport.learnReplyAddress(destination, plane, port);
    }

    /**
     * {@inheritDoc}
     */
    public boolean isFromPeer(final int destination, final int plane)
    {
        return transport.isFromPeer(destination, plane);
    }

    /**
     * {@inheritDoc}
     */
    public InetSocketAddress destinationAddress(final int destination, final int plane)
    {
        return transport.destinationAddress(destination, plane);
    }

    /**
     * {@inheritDoc}
     */
    public long sourceHostKey()
    {
        return transport.sourceHostKey();
    }

    /**
     * {@inheritDoc}
     */
    public boolean hasRoute(final int destination, final int plane)
    {
        return transport.hasRoute(destination, plane);
    }

    /**
     * {@inheritDoc}
     */
    public void releaseDestination(final int destination)
    {
        transport.releaseDestination(destination);
    }

    /**
     * {@inheritDoc}
     */
    public InetAddress planeAddress(final int plane)
    {
        return transport.planeAddress(plane);
    }

    /**
     * {@inheritDoc}
     */
    public int datagramOverhead()
    {
        return transport.datagramOverhead();
    }

    /**
     * {@inheritDoc}
     */
    public long receiveErrors()
    {
        return transport.receiveErrors();
    }

    /**
     * {@inheritDoc}
     */
    public long sendCalls()
    {
        return transport.sendCalls();
    }

    /**
     * {@inheritDoc}
     */
    public long sentDatagrams()
    {
        return transport.sentDatagrams();
    }

    /**
     * {@inheritDoc}
     */
    public long sendDrops()
    {
        return transport.sendDrops();
    }

    /**
     * {@inheritDoc}
     */
    public long receiveCalls()
    {
        return transport.receiveCalls();
    }

    /**
     * {@inheritDoc}
     */
    public long receivedDatagrams()
    {
        return transport.receivedDatagrams();
    }

    /**
     * {@inheritDoc}
     */
    public long latencyDatagrams()
    {
        return transport.latencyDatagrams();
    }

    /**
     * {@inheritDoc}
     */
    public int addDestination(final InetSocketAddress... addressPerPlane) throws IOException
    {
        return transport.addDestination(addressPerPlane);
    }

    /**
     * {@inheritDoc}
     */
    public int flush()
    {
        return transport.flush();
    }

    /**
     * {@inheritDoc}
     */
    public void close()
    {
        transport.close();
    }

    /**
     * {@inheritDoc}
     */
    public IOException lastSendError()
    {
        return transport.lastSendError();
    }

    private int onPlaneSendResult(final int plane, final int result)
    {
        if (SENT == result)
        {
            isPlaneFailing[plane] = false;
        }
        else if (SEND_ERROR == result && !isPlaneFailing[plane])
        {
            isPlaneFailing[plane] = true;
            onPlaneFailing(plane);
        }

        return result;
    }

    private static String describe(final IOException cause)
    {
        // NIO reports ECONNREFUSED on a connected socket as a PortUnreachableException without a message
        return null == cause.getMessage() ? cause.getClass().getSimpleName() : cause.getMessage();
    }

    private void onPlaneFailing(final int plane)
    {
        // built when a plane starts failing, not per failed send: the cause changes rarely and the log keeps it
        final IOException cause = transport.lastSendError();
        IOException error = planeErrors[plane];
        if (null == error || error.getCause() != cause)
        {
            error = new IOException("send failed on plane " + plane + " from " +
                transport.planeAddress(plane).getHostAddress() + " (" + endpointLabel + "): " +
                (null == cause ? "the socket reported an error (" + transport.getClass().getSimpleName() +
                " does not expose its message)" : describe(cause)), cause);
            planeErrors[plane] = error;
        }
        errorHandler.onError(error);
    }
}
