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

import io.metaroce.datapath.ConnectionHandler;
import io.metaroce.datapath.ReceiverConnection;
import io.metaroce.datapath.SenderConnection;
import io.metaroce.datapath.SenderSettings;
import io.metaroce.datapath.SocketGroup;
import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.driver.status.LossReport;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.EpochClock;

import java.io.IOException;
import java.util.ArrayList;

/**
 * The sending side of the network transport for one set of local plane addresses and engine settings: one
 * {@link PacketTransport} opened by the driver's transport factory (for UDP, a receive socket per plane on one
 * ephemeral port for the acknowledgements, plus per receiver one connected send socket per plane and entropy
 * value, shared by every publication to that receiver), registered as a socket group with the sender agent's
 * {@link TransportEngine}. Every network publication whose channel has the same {@link UdpChannel#sendEndpointKey()}
 * is a sender connection on it, so publications share the endpoint's sockets.
 * <p>
 * Created (sockets bound) by the conductor, then handed to the sender agent through its command queue, which registers
 * its socket group; from then on the transport and the publication list are confined to the sender agent's thread,
 * which runs the engine and then calls {@link #doWork(long)} every duty cycle. Every {@link #LOSS_SAMPLE_INTERVAL_NS}
 * it writes the retransmissions of its connections into the driver's loss report (one entry per stream; the source is
 * the endpoint's local addresses). The engine sends through an {@link ErrorLoggingTransport}, so a plane whose sends
 * fail is reported in the distinct error log.
 * <p>
 * <b>Lifetime.</b> The conductor keeps its reference count and, once the last publication on it has drained,
 * lingered and been freed (so the sender has dropped it), asks the sender to close it through the command queue
 * ({@link EndpointLifecycle}): the sender removes it from its duty cycle and closes the engine (its counters are
 * freed) and the sockets; the conductor then forgets it, and a later publication opens a fresh endpoint. When the
 * driver closes, the conductor closes what is left after the agents have stopped.
 */
final class SendEndpoint implements ConnectionHandler, AutoCloseable
{
    /**
     * How often the sender samples its connections' retransmissions into the loss report.
     */
    static final long LOSS_SAMPLE_INTERVAL_NS = 100_000_000L;

    private final String key;
    private final PacketTransport transport;
    private final int datagramOverhead;
    private final TransportEngine engine;
    private final SocketGroup.Context groupCtx;
    private SocketGroup group;
    private final EndpointLifecycle lifecycle = new EndpointLifecycle();
    private final ErrorHandler errorHandler;
    private final ArrayList<NetworkPublication> publications = new ArrayList<>();
    private final Int2ObjectHashMap<NetworkPublication> publicationByConnectionId = new Int2ObjectHashMap<>();
    private final LossReport lossReport;
    private final EpochClock epochClock;
    private final String localAddresses;
    private long nextLossSampleNs;
    private int refCount;

    SendEndpoint(
        final String key,
        final PacketTransport transport,
        final TransportEngine engine,
        final LossReport lossReport,
        final EpochClock epochClock,
        final ErrorHandler errorHandler)
    {
        this.key = key;
        this.transport = transport;
        this.datagramOverhead = transport.datagramOverhead();
        this.lossReport = lossReport;
        this.epochClock = epochClock;
        this.errorHandler = errorHandler;
        final StringBuilder addresses = new StringBuilder();
        for (int i = 0; i < transport.planeCount(); i++)
        {
            addresses.append(0 == i ? "" : ",").append(transport.planeAddress(i).getHostAddress());
        }
        this.localAddresses = addresses.toString();
        this.engine = engine;
        this.groupCtx = new SocketGroup.Context()
            .transport(new ErrorLoggingTransport(transport, "send endpoint src=" + localAddresses, errorHandler))
            .connectionHandler(this)
            .counterLabel("src=" + localAddresses);
    }

    /**
     * Sender: register the endpoint's sockets with the sender's engine, when the sender starts running it.
     */
    void onAddedToSender()
    {
        try
        {
            group = engine.addSocketGroup(groupCtx);
        }
        catch (final RuntimeException ex)
        {
            errorHandler.onError(new IllegalStateException(
                "send endpoint src=" + localAddresses + ": cannot join the sender's engine", ex));
        }
    }

    String key()
    {
        return key;
    }

    /**
     * Conductor: count a publication using the endpoint.
     */
    void incRef()
    {
        refCount++;
    }

    /**
     * Conductor: a publication stopped using the endpoint.
     *
     * @return the remaining count.
     */
    int decRef()
    {
        return --refCount;
    }

    /**
     * Conductor: publications counted on the endpoint.
     *
     * @return the count.
     */
    int refCount()
    {
        return refCount;
    }

    /**
     * The close handshake between the conductor and the sender.
     *
     * @return the endpoint's lifecycle.
     */
    EndpointLifecycle lifecycle()
    {
        return lifecycle;
    }

    /**
     * Sender: close the endpoint if the conductor still wants it closed (no publication came back in between).
     * Errors while closing go to the error log; the endpoint is marked closed in every case.
     *
     * @return true when the endpoint was closed and must leave the sender's duty cycle.
     */
    boolean closeIfRequested()
    {
        return lifecycle.closeIfRequested(this::close, errorHandler);
    }

    /**
     * Bytes the endpoint's transport adds to every datagram, which the log's frames leave room for. Read when the
     * transport was opened, so the conductor may ask.
     *
     * @return the overhead in bytes.
     */
    int datagramOverhead()
    {
        return datagramOverhead;
    }

    /**
     * Sender: register the publication's destination on the transport; the publication connects on the next duty
     * cycle.
     */
    void addPublication(final NetworkPublication publication)
    {
        final int destination;
        try
        {
            destination = transport.addDestination(publication.channel().endpoints);
        }
        catch (final IOException | RuntimeException ex)
        {
            errorHandler.onError(new IllegalStateException("publication " + publication.registrationId() +
                " on " + publication.channel().canonicalForm() + ": cannot open its send sockets", ex));
            publication.onSendSocketsFailed();
            return;
        }

        publications.add(publication);
        publication.onAddedToSender(destination, engineNanoTime());
    }

    SenderConnection connect(final SenderSettings settings, final NetworkPublication publication)
    {
        try
        {
            if (null == group)
            {
                throw new IllegalStateException("the send endpoint is not registered with the sender's engine");
            }
            final SenderConnection connection = engine.connect(group, settings, publication);
            publicationByConnectionId.put(connection.localConnectionId(), publication);
            return connection;
        }
        catch (final IllegalStateException | IllegalArgumentException ex)
        {
            errorHandler.onError(new IllegalStateException("publication " + publication.registrationId() +
                " cannot connect, retrying: " + ex.getMessage(), ex));
            return null;
        }
    }

    /**
     * Sender duty cycle, after the engine's: every publication's connection housekeeping; a publication whose
     * connection is closed for good is dropped and its destination released.
     *
     * @param nowNs current time.
     * @return work done.
     */
    int doWork(final long nowNs)
    {
        int workCount = 0;
        if (nowNs - nextLossSampleNs >= 0)
        {
            nextLossSampleNs = nowNs + LOSS_SAMPLE_INTERVAL_NS;
            sampleLoss();
        }

        final ArrayList<NetworkPublication> publications = this.publications;
        for (int i = publications.size() - 1; i >= 0; i--)
        {
            final NetworkPublication publication = publications.get(i);
            workCount += publication.onSenderDutyCycle(this, nowNs);
            if (publication.isSenderDone())
            {
                publications.remove(i);
                transport.releaseDestination(publication.destination());
                workCount++;
            }
        }

        return workCount;
    }

    private void sampleLoss()
    {
        final long nowMs = epochClock.time();
        final ArrayList<NetworkPublication> publications = this.publications;
        for (int i = 0, size = publications.size(); i < size; i++)
        {
            final NetworkPublication publication = publications.get(i);
            publication.sampleLoss(lossReport, localAddresses, nowMs);
        }
    }

    /**
     * The sender's engine, which the endpoint's sockets are a group of, for tests.
     */
    TransportEngine engine()
    {
        return engine;
    }

    /**
     * Free the endpoint's connections (its socket group leaves the engine) and close the sockets: on the sender's
     * thread, or once the sender no longer runs.
     */
    public void close()
    {
        if (null != group)
        {
            engine.removeSocketGroup(group);
            group = null;
        }
        CloseHelper.close(transport);
    }

    /**
     * {@inheritDoc}
     */
    public void onSenderEstablished(final SenderConnection connection)
    {
        final NetworkPublication publication = publicationByConnectionId.get(connection.localConnectionId());
        if (null != publication)
        {
            publication.onEstablished();
        }
    }

    /**
     * {@inheritDoc}
     */
    public void onSenderAcknowledged(final SenderConnection connection, final long position)
    {
        final NetworkPublication publication = publicationByConnectionId.get(connection.localConnectionId());
        if (null != publication)
        {
            publication.onAcknowledged(position);
        }
    }

    /**
     * {@inheritDoc}
     */
    public void onSenderTerminated(final SenderConnection connection, final int cause)
    {
        final NetworkPublication publication = publicationByConnectionId.remove(connection.localConnectionId());
        if (null != publication)
        {
            publication.onTerminated(engineNanoTime());
        }
    }

    /**
     * {@inheritDoc}
     */
    public void onReceiverEndOfStream(final ReceiverConnection connection, final long finalPosition)
    {
    }

    /**
     * {@inheritDoc}
     */
    public void onReceiverTerminated(final ReceiverConnection connection, final int cause)
    {
    }

    private long engineNanoTime()
    {
        return engine.context().clock().nanoTime();
    }
}
