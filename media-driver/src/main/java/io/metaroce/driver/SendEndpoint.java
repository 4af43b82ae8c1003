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

import io.metaroce.datapath.SocketGroup;
import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.stream.ConnectionHandler;
import io.metaroce.datapath.stream.PayloadSource;
import io.metaroce.datapath.stream.ReceiverStream;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.TerminationCause;
import io.metaroce.driver.status.LossReport;
import io.metaroce.driver.status.SystemCounterDescriptor;
import io.metaroce.driver.status.SystemCounters;
import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.Object2IntHashMap;
import org.agrona.collections.Object2ObjectHashMap;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.status.AtomicCounter;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;

/**
 * The sending side of the network transport for one set of local plane addresses and engine settings: one
 * {@link PacketTransport} opened by the driver's transport factory (for UDP, a receive socket per plane on one
 * ephemeral port for the acknowledgements, plus per receiver one connected send socket per plane and entropy
 * value, shared by every publication to that receiver), registered as a socket group with the sender agent's
 * {@link TransportEngine}. Every network publication whose channel has the same {@link UdpChannel#sendEndpointKey()}
 * is a {@link SenderStream} opened on it, so publications share the endpoint's sockets; and the streams of every
 * publication to the same receiver endpoints with the same connection settings ({@link UdpChannel#connectionForm()})
 * share one sender connection (wire version 2: one PSN space, one loss recovery, one path table and congestion window
 * for all of them). The engine finds that connection, or opens it, when a stream opens.
 * <p>
 * Created (sockets bound) by the conductor, then handed to the sender agent through its command queue, which registers
 * its socket group; from then on the transport and the publication list are confined to the sender agent's thread,
 * which runs the engine and then calls {@link #doWork(long)} every duty cycle. Every {@link #LOSS_SAMPLE_INTERVAL_NS}
 * it writes the retransmissions of its connections into the driver's loss report: retransmissions belong to a
 * connection, not to one of its streams, so there is one entry per connection form (receiver endpoints and
 * connection settings, which a reconnection keeps), with stream id 0 and session id 0, that form as its channel and
 * the endpoint's local addresses as its source. The engine sends through an {@link ErrorLoggingTransport}, so a plane
 * whose sends fail is reported in the distinct error log.
 * <p>
 * <b>Lifetime.</b> A connection lives while it carries a stream, and lingers for the engine's linger timeout
 * ({@code metaroce.datapath.linger.timeout}) after its last stream closed, so that a publication added meanwhile
 * reuses it without a handshake; then it closes (CLOSE). The conductor keeps the endpoint's reference count and, once
 * the last publication on it has drained, lingered and been freed (so the sender has dropped it), asks the sender to
 * close it through the command queue ({@link EndpointLifecycle}): the sender removes it from its duty cycle and
 * removes its socket group from the engine (its connections, lingering or not, end and their counters are freed)
 * and closes the sockets; the conductor then forgets it, and a later publication opens a fresh endpoint. When the
 * driver closes, the conductor closes what is left after the agents have stopped.
 */
final class SendEndpoint extends NetworkEndpoint implements ConnectionHandler, AutoCloseable
{
    /**
     * How often the sender samples its connections' retransmissions into the loss report.
     */
    static final long LOSS_SAMPLE_INTERVAL_NS = 100_000_000L;

    private static final int NO_LOSS_ENTRY = -2;

    private final String key;
    private final PacketTransport transport;
    private final int datagramOverhead;
    private final TransportEngine engine;
    private final SocketGroup.Context groupCtx;
    private SocketGroup group;
    private final ErrorHandler errorHandler;
    private final ArrayList<NetworkPublication> publications = new ArrayList<>();
    private final Long2ObjectHashMap<NetworkPublication> publicationByStream = new Long2ObjectHashMap<>();
    private final Object2ObjectHashMap<String, Destination> destinations = new Object2ObjectHashMap<>();
    private final LossReport lossReport;
    private final ArrayList<ConnectionLoss> connectionLosses = new ArrayList<>();
    private final Int2ObjectHashMap<ConnectionLoss> connectionLossById = new Int2ObjectHashMap<>();
    private final Object2IntHashMap<String> lossEntryByConnectionForm = new Object2IntHashMap<>(NO_LOSS_ENTRY);
    private long lossSampleRound;
    private final EpochClock epochClock;
    private final AtomicCounter tailsLost;
    private final AtomicCounter tailBytesLost;
    private final String localAddresses;
    private long nextLossSampleNs;
    private int idleDestinations;
    private Runnable onClosed;
    private long closeWaitDeadlineNs;

    SendEndpoint(
        final String key,
        final PacketTransport transport,
        final TransportEngine engine,
        final LossReport lossReport,
        final EpochClock epochClock,
        final SystemCounters systemCounters,
        final ErrorHandler errorHandler)
    {
        this.tailsLost = systemCounters.get(SystemCounterDescriptor.PUBLICATION_TAILS_LOST);
        this.tailBytesLost = systemCounters.get(SystemCounterDescriptor.PUBLICATION_TAIL_BYTES_LOST);
        this.key = key;
        this.transport = transport;
        this.datagramOverhead = engine.datagramOverhead(transport);
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
     * Sender: the conductor asked to close the endpoint; the sender closes it once its connections are gone (see
     * {@link #hasConnections()}) or at {@link #closeWaitDeadlineNs()}.
     *
     * @param onClosed run by the sender once it closed the endpoint.
     * @param nowNs    current time.
     */
    void onCloseRequested(final Runnable onClosed, final long nowNs)
    {
        this.onClosed = onClosed;
        final EngineSettings settings = null != group ? group.settings() : engine.settings();
        closeWaitDeadlineNs = nowNs + settings.timers().lingerTimeoutNs() + settings.timers().connectionTimeoutNs();
    }

    /**
     * Sender: how long a close waits for the endpoint's connections to linger and close (CLOSE, answered or retried
     * out): a linger timeout plus a connection timeout from the request. Past it the engine frees them with
     * CLOSE(SHUTDOWN).
     *
     * @return the deadline.
     */
    long closeWaitDeadlineNs()
    {
        return closeWaitDeadlineNs;
    }

    /**
     * Sender: what to run once the endpoint is closed.
     *
     * @return the callback of the last close request.
     */
    Runnable onClosed()
    {
        return onClosed;
    }

    /**
     * Sender: does the engine still hold a connection of the endpoint, live or lingering?
     *
     * @return true while one is left.
     */
    boolean hasConnections()
    {
        return null != group && engine.connectionCount(group) > 0;
    }

    /**
     * Sender: close the endpoint if the conductor still wants it closed (no publication came back in between).
     * Errors while closing go to the error log; the endpoint is marked closed in every case.
     *
     * @return true when the endpoint was closed and must leave the sender's duty cycle.
     */
    boolean closeIfRequested()
    {
        return lifecycle().closeIfRequested(this::close, errorHandler);
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
     * Sender: register the publication's destination on the transport, once per receiver (the endpoint counts the
     * publications of each and releases it with the last), so that every publication to one receiver has the same
     * destination id, which is what lets the engine carry their streams on one connection whatever the transport
     * does with repeated registrations; the publication opens its stream on the next duty cycle. A multi-destination
     * publication registers each of its destinations so.
     */
    void addPublication(final NetworkPublication publication)
    {
        final PublicationDestinations multiDestination = publication.destinations();
        if (null != multiDestination)
        {
            publications.add(publication);
            final ArrayList<PublicationDestination> destinations = multiDestination.senderDestinations();
            for (int i = 0, size = destinations.size(); i < size; i++)
            {
                addDestination(destinations.get(i));
            }
            return;
        }

        final int id = acquireDestination(publication.channel().endpointList(), publication.channel().endpoints,
            publication);
        if (id < 0)
        {
            publication.onSendSocketsFailed();
            return;
        }
        publications.add(publication);
        publication.onAddedToSender(id, engineNanoTime());
    }

    /**
     * Sender: register a destination of a multi-destination publication on the transport, as a unicast
     * publication's receiver is; it opens its stream on the next duty cycle.
     */
    void addDestination(final PublicationDestination destination)
    {
        final int id = acquireDestination(destination.receiver(), destination.endpoints(), destination.publication());
        if (id < 0)
        {
            destination.onSendSocketsFailed();
            return;
        }
        destination.onAddedToSender(id, engineNanoTime());
    }

    private int acquireDestination(
        final String receiver, final InetSocketAddress[] endpoints, final NetworkPublication publication)
    {
        Destination destination = destinations.get(receiver);
        if (null == destination)
        {
            try
            {
                destination = new Destination(transport.addDestination(endpoints));
            }
            catch (final IOException | RuntimeException ex)
            {
                errorHandler.onError(new IllegalStateException("publication " + publication.registrationId() +
                    " on " + publication.channel().canonicalForm() + ": cannot open its send sockets to " + receiver,
                    ex));
                return -1;
            }
            destinations.put(receiver, destination);
        }

        if (0 == destination.publications++ && !destination.connections.isEmpty())
        {
            idleDestinations--;
        }

        return destination.id;
    }

    /**
     * A publication (or a destination of one) no longer sends: its receiver is released once it has no publication
     * left and the connections to it are gone too, since a connection lingers after its last stream (and may be
     * reused meanwhile), sending its keepalives and at last its CLOSE through the receiver's send sockets.
     */
    private void releaseDestination(final String receiver)
    {
        final Destination destination = destinations.get(receiver);
        if (null != destination && 0 == --destination.publications)
        {
            if (destination.hasLiveConnection())
            {
                idleDestinations++;
            }
            else
            {
                destinations.remove(receiver);
                transport.releaseDestination(destination.id);
            }
        }
    }

    /**
     * Release the receivers that have no publication left once their connections are gone.
     */
    private int releaseIdleDestinations()
    {
        int released = 0;
        final Object2ObjectHashMap<String, Destination>.ValueIterator iterator = destinations.values().iterator();
        while (iterator.hasNext())
        {
            final Destination destination = iterator.next();
            if (0 == destination.publications && !destination.hasLiveConnection())
            {
                iterator.remove();
                transport.releaseDestination(destination.id);
                idleDestinations--;
                released++;
            }
        }

        return released;
    }

    /**
     * Sender: open a publication's stream on the endpoint's sockets, on the connection to its receiver with its
     * connection settings (made if there is none).
     *
     * @return the stream, or null (and an error in the log) when the engine cannot open it now.
     */
    SenderStream openStream(
        final SenderSettings settings, final PayloadSource source, final long registrationId, final String receiver)
    {
        try
        {
            if (null == group)
            {
                throw new IllegalStateException("the send endpoint is not registered with the sender's engine");
            }
            final SenderStream stream = engine.openStream(group, settings, source);
            if (source instanceof NetworkPublication)
            {
                publicationByStream.put(streamKey(stream.streamId(), stream.sessionId()), (NetworkPublication)source);
            }
            final Destination destination = destinations.get(receiver);
            if (null != destination)
            {
                destination.onConnection(stream.connection());
            }
            return stream;
        }
        catch (final IllegalStateException | IllegalArgumentException ex)
        {
            errorHandler.onError(new IllegalStateException("publication " + registrationId +
                " cannot open its stream to " + receiver + ", retrying: " + ex.getMessage(), ex));
            return null;
        }
    }

    /**
     * Sender duty cycle, after the engine's: every publication's stream housekeeping; a publication whose stream is
     * closed for good is dropped and its destination released.
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
            if (idleDestinations > 0)
            {
                workCount += releaseIdleDestinations();
            }
        }

        final ArrayList<NetworkPublication> publications = this.publications;
        for (int i = publications.size() - 1; i >= 0; i--)
        {
            final NetworkPublication publication = publications.get(i);
            workCount += publication.onSenderDutyCycle(this, nowNs);
            if (null != publication.destinations())
            {
                workCount += releaseDetachedDestinations(publication);
            }
            if (publication.isSenderDone())
            {
                publications.remove(i);
                if (null == publication.destinations())
                {
                    releaseDestination(publication.channel().endpointList());
                    reportLostTail(publication);
                }
                workCount++;
            }
        }

        return workCount;
    }

    /**
     * A multi-destination publication's destinations the sender is done with leave its list and release their
     * receiver; those of a released publication report what they did not acknowledge of its tail.
     */
    private int releaseDetachedDestinations(final NetworkPublication publication)
    {
        int released = 0;
        final ArrayList<PublicationDestination> destinations = publication.destinations().senderDestinations();
        for (int i = destinations.size() - 1; i >= 0; i--)
        {
            final PublicationDestination destination = destinations.get(i);
            if (destination.isDetached())
            {
                destinations.remove(i);
                if (destination.transportDestination() >= 0)
                {
                    releaseDestination(destination.receiver());
                }
                if (publication.isClosing())
                {
                    reportLostTail(publication, destination.unacknowledgedTailBytes(publication.dataEndPosition()),
                        destination.receiver());
                }
                released++;
            }
        }

        return released;
    }

    /**
     * A released publication whose drain ended with messages unacknowledged (its linger passed, its receiver went
     * away) lost them: no subscriber will read them and its publishers' offers succeeded. The loss is counted, logged
     * in the distinct error log naming the stream and the bytes, and written to the loss report in an entry of the
     * stream's own (its stream and session ids, its channel), so that it is never silent.
     */
    private void reportLostTail(final NetworkPublication publication)
    {
        reportLostTail(publication, publication.unacknowledgedTailBytes(), null);
    }

    /**
     * Report a lost tail, of a unicast publication or of one destination (receiver) of a multi-destination one.
     */
    private void reportLostTail(final NetworkPublication publication, final long lostBytes, final String receiver)
    {
        if (lostBytes <= 0)
        {
            return;
        }

        final String channel = publication.channel().canonicalForm();
        errorHandler.onError(new IllegalStateException("publication " + publication.registrationId() + " stream " +
            publication.streamId() + " session " + publication.sessionId() + " on " + channel + " released with " +
            lostBytes + " bytes of messages never acknowledged by the receiver" +
            (null == receiver ? "" : " " + receiver) + ": lost"));
        final int entry = lossReport.createEntry(
            publication.streamId(), publication.sessionId(), channel, localAddresses);
        if (entry >= 0)
        {
            lossReport.recordObservation(entry, 1, lostBytes, epochClock.time());
        }
        // Counted last, so that a reader who sees the count finds the error and the report entry too.
        tailBytesLost.getAndAddRelease(lostBytes);
        tailsLost.incrementRelease();
    }

    /**
     * Sample the retransmissions of every connection that carries a stream of the endpoint into the loss report, once
     * per connection however many streams it carries. A connection seen for the first time counts from its start; one
     * that carries none of the endpoint's streams any more is forgotten.
     */
    private void sampleLoss()
    {
        final long round = ++lossSampleRound;
        final ArrayList<NetworkPublication> publications = this.publications;
        for (int i = 0, size = publications.size(); i < size; i++)
        {
            final NetworkPublication publication = publications.get(i);
            final PublicationDestinations multiDestination = publication.destinations();
            if (null == multiDestination)
            {
                markSampled(publication.senderStream(), publication.channel().connectionForm(), round);
                continue;
            }
            final ArrayList<PublicationDestination> destinations = multiDestination.senderDestinations();
            for (int j = 0, count = destinations.size(); j < count; j++)
            {
                final PublicationDestination destination = destinations.get(j);
                markSampled(destination.senderStream(), destination.connectionForm(), round);
            }
        }

        final long nowMs = epochClock.time();
        final ArrayList<ConnectionLoss> connectionLosses = this.connectionLosses;
        for (int i = connectionLosses.size() - 1; i >= 0; i--)
        {
            final ConnectionLoss loss = connectionLosses.get(i);
            sampleLoss(loss, nowMs);
            if (loss.round != round)
            {
                connectionLosses.remove(i);
                connectionLossById.remove(loss.connection.localConnectionId());
            }
        }
    }

    private void markSampled(final SenderStream stream, final String connectionForm, final long round)
    {
        if (null == stream)
        {
            return;
        }
        final SenderConnection connection = stream.connection();
        ConnectionLoss loss = connectionLossById.get(connection.localConnectionId());
        if (null == loss || loss.connection != connection)
        {
            if (null != loss)
            {
                connectionLosses.remove(loss);
            }
            loss = new ConnectionLoss(connection, connectionForm);
            connectionLossById.put(connection.localConnectionId(), loss);
            connectionLosses.add(loss);
        }
        loss.round = round;
    }

    /**
     * Report a connection's retransmissions since the last sample, less those the receiver reported it already held
     * (spurious: an ACK was lost or late, not DATA), as loss observations (bytes estimated from the connection's
     * average DATA payload) in the entry of its connection form. The report only grows: a spurious report that
     * arrives after its retransmission was sampled offsets later retransmissions instead of taking loss back.
     */
    private void sampleLoss(final ConnectionLoss loss, final long nowMs)
    {
        final SenderConnection connection = loss.connection;
        final long lost = connection.retransmits() - connection.spuriousRetransmits();
        final long observations = lost - loss.sampledLost;
        if (observations <= 0)
        {
            return;
        }

        loss.sampledLost = lost;
        int entry = lossEntryByConnectionForm.getValue(loss.connectionForm);
        if (NO_LOSS_ENTRY == entry)
        {
            entry = lossReport.createEntry(0, 0, loss.connectionForm, localAddresses);
            lossEntryByConnectionForm.put(loss.connectionForm, entry);
        }
        if (entry >= 0)
        {
            final long packets = connection.dataPacketsSent();
            final long averageBytes = packets > 0 ? connection.sentBytes() / packets : 0;
            lossReport.recordObservation(entry, observations, observations * averageBytes, nowMs);
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
     * Free the endpoint's connections and their streams (its socket group leaves the engine) and close the sockets:
     * on the sender's thread, or once the sender no longer runs.
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
    public void onSenderEstablished(final SenderStream stream)
    {
        if (stream.source instanceof PublicationDestination)
        {
            ((PublicationDestination)stream.source).onEstablished(stream);
            return;
        }
        final NetworkPublication publication = publicationOf(stream);
        if (null != publication)
        {
            publication.onEstablished();
        }
    }

    /**
     * {@inheritDoc}
     */
    public void onSenderAcknowledged(final SenderStream stream, final long position)
    {
        if (stream.source instanceof PublicationDestination)
        {
            ((PublicationDestination)stream.source).onAcknowledged(stream, position);
            return;
        }
        final NetworkPublication publication = publicationOf(stream);
        if (null != publication)
        {
            publication.onAcknowledged(position);
        }
    }

    /**
     * {@inheritDoc}
     */
    public void onSenderTerminated(final SenderStream stream, final int cause)
    {
        if (stream.source instanceof PublicationDestination)
        {
            final PublicationDestination destination = (PublicationDestination)stream.source;
            final NetworkPublication publication = destination.publication();
            destination.onTerminated(stream, cause, publication.isClosing(), engineNanoTime());
            if (TerminationCause.SETUP_REJECTED == cause)
            {
                errorHandler.onError(new IllegalStateException("publication " + publication.registrationId() +
                    " stream " + stream.streamId() + " session " + stream.sessionId() + " to destination " +
                    destination.receiver() + ": the receiver refused its opening (" + TerminationCause.name(cause) +
                    "), opening it again"));
            }
            return;
        }
        final NetworkPublication publication = publicationOf(stream);
        if (null != publication)
        {
            publicationByStream.remove(streamKey(stream.streamId(), stream.sessionId()));
            publication.onTerminated(engineNanoTime(), cause);
            if (TerminationCause.KEY_REVOKED == cause)
            {
                errorHandler.onError(new IllegalStateException("publication " + publication.registrationId() +
                    " stream " + stream.streamId() + " session " + stream.sessionId() + " on " +
                    publication.channel().canonicalForm() + ": the receiver's key left " +
                    Configuration.AUTH_TRUSTED_PEERS_FILE_PROP_NAME + " (" + TerminationCause.name(cause) +
                    "), not connected until it is back"));
            }
            if (TerminationCause.REVOKED_BY_PEER == cause)
            {
                errorHandler.onError(new IllegalStateException("publication " + publication.registrationId() +
                    " stream " + stream.streamId() + " session " + stream.sessionId() + " on " +
                    publication.channel().canonicalForm() + ": the receiver took this driver's key out of its " +
                    "allow-list (" + TerminationCause.name(cause) + "), opening it again"));
            }
            if (TerminationCause.SETUP_REJECTED == cause)
            {
                // The receiver's answer broke the rules, typically an image of the session that already ended beyond
                // what this publication holds: its session id is in use there. Logged once per distinct message.
                errorHandler.onError(new IllegalStateException("publication " + publication.registrationId() +
                    " stream " + stream.streamId() + " session " + stream.sessionId() + " on " +
                    publication.channel().canonicalForm() + ": the receiver refused its opening (" +
                    TerminationCause.name(cause) + "), opening it again"));
            }
        }
    }

    /**
     * {@inheritDoc}
     */
    public void onReceiverEndOfStream(final ReceiverStream stream, final long finalPosition)
    {
    }

    /**
     * {@inheritDoc}
     */
    public void onReceiverTerminated(final ReceiverStream stream, final int cause)
    {
    }

    /**
     * The publication whose current stream this is; null for a stream the publication no longer holds.
     */
    private NetworkPublication publicationOf(final SenderStream stream)
    {
        final NetworkPublication publication =
            publicationByStream.get(streamKey(stream.streamId(), stream.sessionId()));

        return null != publication && publication.senderStream() == stream ? publication : null;
    }

    private static long streamKey(final int streamId, final int sessionId)
    {
        return ((long)streamId << 32) | (sessionId & 0xFFFF_FFFFL);
    }

    private long engineNanoTime()
    {
        return engine.context().clock().nanoTime();
    }

    /**
     * A receiver the endpoint sends to: its destination id on the transport, the publications using it and the
     * connections opened to it (their streams' connections), which may outlive the publications.
     */
    private static final class Destination
    {
        final int id;
        final ArrayList<SenderConnection> connections = new ArrayList<>();
        int publications;

        Destination(final int id)
        {
            this.id = id;
        }

        void onConnection(final SenderConnection connection)
        {
            for (int i = connections.size() - 1; i >= 0; i--)
            {
                final SenderConnection known = connections.get(i);
                if (known == connection)
                {
                    return;
                }
                if (known.terminationCause() >= 0)
                {
                    connections.remove(i);
                }
            }
            connections.add(connection);
        }

        boolean hasLiveConnection()
        {
            for (int i = 0, size = connections.size(); i < size; i++)
            {
                if (connections.get(i).terminationCause() < 0)
                {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * The loss sampling state of one sender connection.
     */
    private static final class ConnectionLoss
    {
        final SenderConnection connection;
        final String connectionForm;
        long sampledLost;
        long round;

        ConnectionLoss(final SenderConnection connection, final String connectionForm)
        {
            this.connection = connection;
            this.connectionForm = connectionForm;
        }
    }
}
