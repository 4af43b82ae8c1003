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

import io.metaroce.datapath.io.ForwardingPacketTransport;
import io.metaroce.datapath.io.PacketTransport;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;

import java.io.IOException;

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
final class ErrorLoggingTransport extends ForwardingPacketTransport
{
    private final ErrorHandler errorHandler;
    private final String endpointLabel;
    private final boolean[] isPlaneFailing;
    private final IOException[] planeErrors;
    private boolean isReplyFailing;
    private IOException replyError;

    ErrorLoggingTransport(final PacketTransport transport, final String endpointLabel, final ErrorHandler errorHandler)
    {
        super(transport);
        this.endpointLabel = endpointLabel;
        this.errorHandler = errorHandler;
        this.isPlaneFailing = new boolean[delegate.planeCount()];
        this.planeErrors = new IOException[delegate.planeCount()];
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
        return onPlaneSendResult(plane, delegate.sendControl(queue, destination, plane, buffer, offset, length));
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
        return onPlaneSendResult(plane, delegate.send(
            destination, plane, entropy, header, headerOffset, headerLength, payload, payloadOffset, payloadLength));
    }

    /**
     * {@inheritDoc}
     */
    public int sendControl(
        final int destination, final int plane, final DirectBuffer buffer, final int offset, final int length)
    {
        return onPlaneSendResult(plane, delegate.sendControl(destination, plane, buffer, offset, length));
    }

    /**
     * {@inheritDoc}
     */
    public int sendToSource(final int port, final DirectBuffer buffer, final int offset, final int length)
    {
        final int result = delegate.sendToSource(port, buffer, offset, length);
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
                    ": the socket reported an error (" + delegate.getClass().getSimpleName() +
                    " does not expose its message)");
            }
            errorHandler.onError(replyError);
        }

        return result;
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
        final IOException cause = delegate.lastSendError();
        IOException error = planeErrors[plane];
        if (null == error || error.getCause() != cause)
        {
            error = new IOException("send failed on plane " + plane + " from " +
                delegate.planeAddress(plane).getHostAddress() + " (" + endpointLabel + "): " +
                (null == cause ? "the socket reported an error (" + delegate.getClass().getSimpleName() +
                " does not expose its message)" : describe(cause)), cause);
            planeErrors[plane] = error;
        }
        errorHandler.onError(error);
    }
}
