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

import io.metaroce.client.ChannelUri;
import io.metaroce.client.exceptions.StorageSpaceException;
import io.metaroce.client.logbuffer.HeaderWriter;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.client.status.CounterTypeId;
import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.connection.SharedCreditScheduler;
import io.metaroce.datapath.io.LossGenerator;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.driver.buffer.LogFactory;
import io.metaroce.driver.buffer.RawLog;
import io.metaroce.driver.status.LossReport;
import io.metaroce.driver.status.StreamCounter;
import io.metaroce.driver.status.SystemCounterDescriptor;
import io.metaroce.driver.status.SystemCounters;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;
import org.agrona.concurrent.status.UnsafeBufferPosition;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The driver's control agent: executes the clients' commands (publications, subscriptions, counters, keepalives,
 * close, termination), links IPC publications to subscriptions as images, moves publisher limits and cleans logs
 * every duty cycle, and runs the timers: driver heartbeat, client liveness, blocked commands and publications,
 * draining and lingering publications.
 * <p>
 * Every resource a client holds is tracked by a link to its {@link ClientSession}, so that a client that closes or
 * stops sending keepalives (a {@code kill -9}) has all its publications, subscriptions and counters freed. A ring
 * record left uncommitted by a dead client is skipped after half the client liveness timeout, before the liveness
 * check of the same timer tick: the keepalives of live clients queue behind it and must not make them look dead.
 * Refusals are raised as {@link ControlProtocolException}s, which the {@link ClientCommandAdapter} turns into typed
 * ERRORs.
 * <p>
 * Network streams ({@code metaroce:udp}): the conductor creates the logs of {@link NetworkPublication}s, the
 * {@link SendEndpoint}s and {@link ReceiveEndpoint}s (binding their sockets, so that a bad channel is refused to the
 * client), and hands them to the sender and receiver agents through their {@link TransportCommandQueue}s. The agents
 * report back (an image log wanted for a STREAM_OPEN, an image created when its stream opens, a stream ended, an
 * endpoint closed) through the conductor's agent event queue, a many-to-one lock-free queue drained at the start of
 * every duty cycle; positions cross through counters and volatile fields, never through commands. Image logs are
 * created here, not on the receiver thread: the {@link ImageLogCreator} zero-fills one a chunk per duty cycle and
 * hands it back to its receive endpoint through the receiver's command queue, so a large log stalls neither the
 * receiver's other streams nor this conductor's work.
 * <p>
 * Endpoints are reference counted: a send endpoint is released once the last network publication on it has been
 * freed (after its drain and linger, so the sender has dropped it), a receive endpoint once its last subscription is
 * removed. The conductor then asks the agent running the endpoint to close it ({@link EndpointLifecycle}; only that
 * agent touches the engine and sockets); the agent reports the close back through the event queue and the conductor
 * forgets the endpoint. A publication or subscription that names the endpoint before the agent acted takes it back;
 * one that comes after opens a fresh endpoint once the old one's sockets are closed. The system counters
 * {@link SystemCounterDescriptor#SEND_ENDPOINTS} and {@link SystemCounterDescriptor#RECEIVE_ENDPOINTS} count the
 * endpoints not yet closed.
 * <p>
 * Single threaded: everything here runs on the conductor's duty cycle, except {@link #offerAgentEvent(Runnable)}.
 */
final class DriverConductor implements Agent
{
    private static final String IPC_SOURCE_IDENTITY = ChannelUri.PREFIX + ChannelUri.IPC_MEDIA;
    /**
     * Network publications, and network images, whose positions one duty cycle tracks.
     */
    static final int STREAM_POSITION_BATCH = 256;

    private final MediaDriver.Context ctx;
    private final ManyToOneRingBuffer toDriverCommands;
    private final ClientProxy clientProxy;
    private final ClientCommandAdapter clientCommandAdapter;
    private final CountersManager countersManager;
    private final UnsafeBuffer countersValuesBuffer;
    private final SystemCounters systemCounters;
    private final StreamCounter streamCounter;
    private final LogFactory logFactory;
    private final EpochClock epochClock;
    private final NanoClock nanoClock;
    private final CachedEpochClock cachedEpochClock = new CachedEpochClock();
    private final DutyCycleTracker dutyCycleTracker;
    private final TransportCommandQueue senderCommands;
    private final TransportCommandQueue receiverCommands;
    private final AtomicCounter clientTimeouts;
    private final AtomicCounter unblockedCommands;
    private final AtomicCounter bytesMapped;
    private final AtomicCounter activeClients;
    private final AtomicCounter sendEndpointCount;
    private final AtomicCounter receiveEndpointCount;
    private final long timerIntervalNs;
    private final long clientLivenessTimeoutMs;
    private final long clientLivenessTimeoutNs;
    private final long commandUnblockTimeoutNs;
    private final ArrayList<ClientSession> clients = new ArrayList<>();
    private final ArrayList<IpcPublication> ipcPublications = new ArrayList<>();
    private final ArrayList<PublicationLink> publicationLinks = new ArrayList<>();
    private final ArrayList<SubscriptionLink> subscriptionLinks = new ArrayList<>();
    private final ArrayList<CounterLink> counterLinks = new ArrayList<>();
    private final ArrayList<NetworkPublication> networkPublications = new ArrayList<>();
    private final ArrayList<NetworkImage> networkImages = new ArrayList<>();
    private final HashMap<String, SendEndpoint> sendEndpoints = new HashMap<>();
    private final HashMap<String, ReceiveEndpoint> receiveEndpoints = new HashMap<>();
    private final CreditLinks creditLinks = new CreditLinks();
    private final ManyToOneConcurrentLinkedQueue<Runnable> agentEvents = new ManyToOneConcurrentLinkedQueue<>();
    private final SenderAgent senderAgent;
    private final ReceiverAgent receiverAgent;
    private final LossReport lossReport;
    private final ImageLogCreator imageLogCreator;
    private final SpyLinks spyLinks;
    private final UnsafeBuffer defaultHeaderBuffer = new UnsafeBuffer(new byte[FrameDescriptor.HEADER_LENGTH]);

    private long timerDeadlineNs;
    private long allowListDeadlineNs;
    private int publicationCursor;
    private int imageCursor;
    private long lastCommandConsumerPosition;
    private long timeOfLastCommandConsumerPositionChangeNs;
    private final SecureRandom secureRandom = new SecureRandom();
    private long nextLossStageId;

    DriverConductor(
        final MediaDriver.Context ctx,
        final ManyToOneRingBuffer toDriverCommands,
        final ClientProxy clientProxy,
        final CountersManager countersManager,
        final SystemCounters systemCounters,
        final LogFactory logFactory,
        final TransportCommandQueue senderCommands,
        final TransportCommandQueue receiverCommands,
        final SenderAgent senderAgent,
        final ReceiverAgent receiverAgent,
        final LossReport lossReport)
    {
        this.lossReport = lossReport;
        this.senderAgent = senderAgent;
        this.receiverAgent = receiverAgent;
        this.ctx = ctx;
        this.toDriverCommands = toDriverCommands;
        this.clientProxy = clientProxy;
        this.countersManager = countersManager;
        this.countersValuesBuffer = (UnsafeBuffer)countersManager.valuesBuffer();
        this.systemCounters = systemCounters;
        this.streamCounter = new StreamCounter(countersManager);
        this.logFactory = logFactory;
        this.senderCommands = senderCommands;
        this.receiverCommands = receiverCommands;
        this.epochClock = ctx.epochClock();
        this.nanoClock = ctx.nanoClock();
        this.timerIntervalNs = ctx.timerIntervalNs();
        this.allowListDeadlineNs = nanoClock.nanoTime() + DriverAuthentication.ALLOW_LIST_CHECK_INTERVAL_NS;
        this.clientLivenessTimeoutNs = ctx.clientLivenessTimeoutNs();
        this.clientLivenessTimeoutMs = TimeUnit.NANOSECONDS.toMillis(clientLivenessTimeoutNs);
        this.commandUnblockTimeoutNs = clientLivenessTimeoutNs / 2;
        this.clientTimeouts = systemCounters.get(SystemCounterDescriptor.CLIENT_TIMEOUTS);
        this.unblockedCommands = systemCounters.get(SystemCounterDescriptor.UNBLOCKED_COMMANDS);
        this.bytesMapped = systemCounters.get(SystemCounterDescriptor.BYTES_CURRENTLY_MAPPED);
        this.activeClients = systemCounters.get(SystemCounterDescriptor.ACTIVE_CLIENTS);
        this.sendEndpointCount = systemCounters.get(SystemCounterDescriptor.SEND_ENDPOINTS);
        this.receiveEndpointCount = systemCounters.get(SystemCounterDescriptor.RECEIVE_ENDPOINTS);
        this.dutyCycleTracker = new DutyCycleTracker(
            systemCounters.get(SystemCounterDescriptor.CONDUCTOR_MAX_CYCLE_TIME),
            systemCounters.get(SystemCounterDescriptor.CONDUCTOR_CYCLE_TIME_THRESHOLD_EXCEEDED),
            ctx.cycleThresholdNs());
        this.clientCommandAdapter = new ClientCommandAdapter(
            toDriverCommands, this, clientProxy, systemCounters, ctx.driverErrorHandler());
        this.imageLogCreator = new ImageLogCreator(logFactory, receiverCommands, ctx.driverErrorHandler(),
            systemCounters, ctx.imageStorageReserve(), ctx.filePageSize(), Configuration.IMAGE_LOG_FILL_CHUNK_LENGTH);
        this.spyLinks = new SpyLinks(
            clientProxy, this::newSubscriberPosition, systemCounters.get(SystemCounterDescriptor.SPY_IMAGES_LAPPED));
    }

    /**
     * {@inheritDoc}
     */
    public String roleName()
    {
        return "metaroce-conductor";
    }

    /**
     * {@inheritDoc}
     */
    public void onStart()
    {
        final long nowNs = nanoClock.nanoTime();
        dutyCycleTracker.start(nowNs);
        timerDeadlineNs = nowNs + timerIntervalNs;
        timeOfLastCommandConsumerPositionChangeNs = nowNs;
        cachedEpochClock.update(epochClock.time());
        toDriverCommands.consumerHeartbeatTime(cachedEpochClock.time());
    }

    /**
     * {@inheritDoc}
     */
    public int doWork()
    {
        final long nowNs = nanoClock.nanoTime();
        dutyCycleTracker.update(nowNs);

        int workCount = clientCommandAdapter.receive();
        workCount += drainAgentEvents();
        workCount += trackStreamPositions();
        workCount += imageLogCreator.doWork();

        if (nowNs - timerDeadlineNs >= 0)
        {
            workCount += onTimer(nowNs);
        }

        return workCount;
    }

    /**
     * {@inheritDoc}
     */
    public void onClose()
    {
        for (final IpcPublication publication : ipcPublications)
        {
            publication.close();
        }
        ipcPublications.clear();
    }

    /**
     * Free every network resource once the agents have stopped: close the endpoints (sockets and engines) the agents
     * have not closed already and free the logs of network publications and images. Called by the driver after its
     * agent threads ended, so that no agent reads a log being unmapped.
     */
    void closeNetworkResources()
    {
        drainAgentEvents();
        for (final SendEndpoint endpoint : sendEndpoints.values())
        {
            if (!endpoint.lifecycle().isClosed())
            {
                CloseHelper.quietClose(endpoint);
                endpoint.lifecycle().forceClosed();
            }
        }
        sendEndpoints.clear();
        for (final ReceiveEndpoint endpoint : receiveEndpoints.values())
        {
            if (!endpoint.lifecycle().isClosed())
            {
                CloseHelper.quietClose(endpoint);
                endpoint.lifecycle().forceClosed();
            }
        }
        receiveEndpoints.clear();
        creditLinks.clear();
        drainAgentEvents();
        imageLogCreator.close();
        for (final NetworkPublication publication : networkPublications)
        {
            publication.close();
        }
        networkPublications.clear();
        for (final NetworkImage image : networkImages)
        {
            image.close();
        }
        networkImages.clear();
    }

    /**
     * Queue an event from the sender or receiver agent, to run on the conductor's next duty cycle. Thread safe; the
     * queue is unbounded (events happen at connection setup and end only, never per message).
     *
     * @param event to run on the conductor.
     */
    void offerAgentEvent(final Runnable event)
    {
        agentEvents.offer(event);
    }

    TransportCommandQueue senderCommands()
    {
        return senderCommands;
    }

    TransportCommandQueue receiverCommands()
    {
        return receiverCommands;
    }

    void onAddPublication(
        final long clientId,
        final long correlationId,
        final int streamId,
        final String channel,
        final boolean exclusive)
    {
        final ChannelUri uri = parseChannel(channel);
        checkStreamId(streamId);
        SpyLinks.checkNotSpy(uri);
        if (!uri.isIpc())
        {
            final UdpChannel udpChannel = UdpChannel.forPublication(uri, ctx);
            HostAddresses.checkPublication(udpChannel);
            onAddNetworkPublication(clientId, correlationId, streamId, udpChannel, exclusive);
            return;
        }

        final PublicationParams params = PublicationParams.of(uri, ctx, exclusive);
        final ClientSession client = getOrAddClient(clientId);

        IpcPublication publication = exclusive ? null : findSharedIpcPublication(streamId);
        final boolean isNew = null == publication;
        if (isNew)
        {
            publication = newIpcPublication(correlationId, streamId, uri.toString(), params, exclusive);
        }
        else
        {
            params.checkCompatibleWith(publication);
        }

        publication.incRef();
        publicationLinks.add(new PublicationLink(correlationId, client, publication));
        clientProxy.onPublicationReady(
            correlationId,
            publication.registrationId(),
            publication.sessionId(),
            streamId,
            publication.publisherLimitId(),
            CountersReader.NULL_COUNTER_ID,
            exclusive,
            publication.logFileName());

        if (isNew)
        {
            for (int i = 0, size = subscriptionLinks.size(); i < size; i++)
            {
                final SubscriptionLink subscription = subscriptionLinks.get(i);
                if (subscription.matches(publication))
                {
                    linkSubscriber(publication, subscription);
                }
            }
        }
    }

    void onRemovePublication(final long clientId, final long correlationId, final long registrationId)
    {
        PublicationLink link = null;
        for (int i = 0, size = publicationLinks.size(); i < size; i++)
        {
            final PublicationLink candidate = publicationLinks.get(i);
            if (candidate.registrationId() == registrationId && candidate.client().clientId() == clientId)
            {
                link = candidate;
                publicationLinks.remove(i);
                break;
            }
        }

        if (null == link)
        {
            throw new ControlProtocolException(ControlErrorCode.UNKNOWN_PUBLICATION,
                "client " + clientId + " has no publication with registration id " + registrationId);
        }

        link.release(nanoClock.nanoTime());
        clientProxy.onOperationSuccess(correlationId);
    }

    /**
     * ADD_DESTINATION: the client's multi-destination publication sends to one more receiver, from the publication's
     * position when that receiver accepts. Answered at once; the destination connects on its own.
     */
    void onAddDestination(
        final long clientId, final long correlationId, final long registrationId, final String channel)
    {
        final PublicationDestinations destinations = multiDestinationPublication(clientId, registrationId);
        checkCommandSpace(senderCommands, "sender");
        final PublicationDestination destination = destinations.add(
            ChannelAddresses.parseDestinationChannel(parseChannel(channel), destinations.planeCount()),
            ctx.publicationDestinationsMax());
        final NetworkPublication publication = destination.publication();
        offerCommand(senderCommands, () -> senderAgent.onAddDestination(publication.endpoint(), destination));
        clientProxy.onOperationSuccess(correlationId);
    }

    /**
     * REMOVE_DESTINATION: the destination receives what was published before, then its stream closes.
     */
    void onRemoveDestination(
        final long clientId, final long correlationId, final long registrationId, final String channel)
    {
        final PublicationDestinations destinations = multiDestinationPublication(clientId, registrationId);
        destinations.remove(ChannelAddresses.parseDestinationChannel(parseChannel(channel), destinations.planeCount()));
        clientProxy.onOperationSuccess(correlationId);
    }

    /**
     * The destinations of a publication the client holds, refusing an unknown publication and one that is not
     * multi-destination.
     */
    private PublicationDestinations multiDestinationPublication(final long clientId, final long registrationId)
    {
        for (int i = 0, size = publicationLinks.size(); i < size; i++)
        {
            final PublicationLink link = publicationLinks.get(i);
            if (link.registrationId() == registrationId && link.client().clientId() == clientId)
            {
                final NetworkPublication publication = link.networkPublication();
                if (null == publication || null == publication.destinations())
                {
                    throw new ControlProtocolException(ControlErrorCode.NOT_SUPPORTED, "publication " +
                        registrationId + " is not a multi-destination publication (" + UdpChannel.CONTROL_MODE_PARAM +
                        "=" + ChannelUri.MANUAL_CONTROL_MODE + "): it has no destinations to add or remove");
                }
                return publication.destinations();
            }
        }

        throw new ControlProtocolException(ControlErrorCode.UNKNOWN_PUBLICATION,
            "client " + clientId + " has no publication with registration id " + registrationId);
    }

    void onAddSubscription(final long clientId, final long correlationId, final int streamId, final String channel)
    {
        final ChannelUri uri = parseChannel(channel);
        checkStreamId(streamId);
        if (uri.isSpy())
        {
            final SpySubscriptionLink spy =
                SpyLinks.newLink(correlationId, getOrAddClient(clientId), streamId, uri, ctx);
            subscriptionLinks.add(spy);
            clientProxy.onSubscriptionReady(correlationId, CountersReader.NULL_COUNTER_ID);
            spyLinks.onSpyAdded(spy, networkPublications);
            return;
        }
        if (!uri.isIpc())
        {
            final UdpChannel udpChannel = UdpChannel.forSubscription(uri, ctx);
            HostAddresses.checkSubscription(udpChannel);
            onAddNetworkSubscription(clientId, correlationId, streamId, udpChannel);
            return;
        }

        PublicationParams.checkSubscriptionParams(uri);
        final ClientSession client = getOrAddClient(clientId);

        final SubscriptionLink subscription = new SubscriptionLink(
            correlationId, client, streamId, uri.toString(), null);
        final ArrayList<IpcPublication> matches = new ArrayList<>();
        for (int i = 0, size = ipcPublications.size(); i < size; i++)
        {
            final IpcPublication publication = ipcPublications.get(i);
            if (publication.isAcceptingSubscriptions() && subscription.matches(publication))
            {
                matches.add(publication);
            }
        }

        if (countersManager.available() < matches.size())
        {
            throw new ControlProtocolException(ControlErrorCode.LIMIT_EXCEEDED, countersFull() + ": cannot " +
                "allocate " + matches.size() + " subscriber position counters for stream " + streamId);
        }

        subscriptionLinks.add(subscription);
        clientProxy.onSubscriptionReady(correlationId, CountersReader.NULL_COUNTER_ID);
        for (final IpcPublication publication : matches)
        {
            linkSubscriber(publication, subscription);
        }
    }

    void onRemoveSubscription(final long clientId, final long correlationId, final long registrationId)
    {
        SubscriptionLink link = null;
        for (int i = 0, size = subscriptionLinks.size(); i < size; i++)
        {
            final SubscriptionLink candidate = subscriptionLinks.get(i);
            if (candidate.registrationId() == registrationId && candidate.client().clientId() == clientId)
            {
                link = candidate;
                subscriptionLinks.remove(i);
                break;
            }
        }

        if (null == link)
        {
            throw new ControlProtocolException(ControlErrorCode.UNKNOWN_SUBSCRIPTION,
                "client " + clientId + " has no subscription with registration id " + registrationId);
        }

        unlinkSubscription(link);
        clientProxy.onOperationSuccess(correlationId);
    }

    void onClientKeepalive(final long clientId)
    {
        getOrAddClient(clientId).onKeepalive(cachedEpochClock.time());
    }

    void onClientClose(final long clientId, final long correlationId)
    {
        final ClientSession client = findClient(clientId);
        if (null != client)
        {
            removeClient(client);
        }
        clientProxy.onOperationSuccess(correlationId);
    }

    void onTerminateDriver(
        final long clientId,
        final long correlationId,
        final DirectBuffer tokenBuffer,
        final int tokenOffset,
        final int tokenLength)
    {
        final File directory = new File(ctx.directoryName());
        if (!ctx.terminationValidator().allowTermination(directory, tokenBuffer, tokenOffset, tokenLength))
        {
            throw new ControlProtocolException(ControlErrorCode.NOT_SUPPORTED, "termination refused");
        }

        clientProxy.onOperationSuccess(correlationId);
        ctx.terminationHook().run();
    }

    void onAddCounter(
        final long clientId,
        final long correlationId,
        final int typeId,
        final DirectBuffer keyBuffer,
        final int keyOffset,
        final int keyLength,
        final DirectBuffer labelBuffer,
        final int labelOffset,
        final int labelLength)
    {
        if (keyLength > CountersManager.MAX_KEY_LENGTH)
        {
            throw new ControlProtocolException(ControlErrorCode.LIMIT_EXCEEDED, "counter key of " + keyLength +
                " bytes exceeds the maximum of " + CountersManager.MAX_KEY_LENGTH);
        }

        if (CounterTypeId.isReserved(typeId))
        {
            throw new ControlProtocolException(ControlErrorCode.CLASH, "counter type id " + typeId +
                " is reserved for the driver's counters: custom counters use " + CounterTypeId.MIN_CUSTOM_TYPE_ID +
                " and above, except " + CounterTypeId.MIN_DATAPATH_TYPE_ID + " to " +
                CounterTypeId.MAX_DATAPATH_TYPE_ID);
        }

        if (labelLength > CountersManager.MAX_LABEL_LENGTH)
        {
            throw new ControlProtocolException(ControlErrorCode.LIMIT_EXCEEDED, "counter label of " + labelLength +
                " bytes exceeds the maximum of " + CountersManager.MAX_LABEL_LENGTH);
        }

        final ClientSession client = getOrAddClient(clientId);
        final int counterId;
        try
        {
            counterId = countersManager.allocate(
                typeId, keyBuffer, keyOffset, keyLength, labelBuffer, labelOffset, labelLength);
        }
        catch (final IllegalStateException ex)
        {
            throw new ControlProtocolException(
                ControlErrorCode.LIMIT_EXCEEDED, countersFull() + ": cannot allocate the counter of type " + typeId);
        }

        countersManager.setCounterRegistrationId(counterId, correlationId);
        countersManager.setCounterOwnerId(counterId, clientId);
        counterLinks.add(new CounterLink(correlationId, client, counterId));
        clientProxy.onCounterReady(correlationId, counterId);
    }

    void onRemoveCounter(final long clientId, final long correlationId, final long registrationId)
    {
        for (int i = 0, size = counterLinks.size(); i < size; i++)
        {
            final CounterLink link = counterLinks.get(i);
            if (link.registrationId() == registrationId && link.client().clientId() == clientId)
            {
                counterLinks.remove(i);
                countersManager.free(link.counterId());
                clientProxy.onOperationSuccess(correlationId);
                return;
            }
        }

        throw new ControlProtocolException(ControlErrorCode.UNKNOWN_COUNTER,
            "client " + clientId + " has no counter with registration id " + registrationId);
    }

    void onPublicationDrained(final IpcPublication publication)
    {
        final ArrayList<SubscriberPosition> subscribers = publication.subscribers();
        for (int i = subscribers.size() - 1; i >= 0; i--)
        {
            final SubscriberPosition subscriber = subscribers.get(i);
            final SubscriptionLink link = subscriber.subscription();
            publication.removeSubscriber(link);
            subscriber.position().close();
            clientProxy.onImageUnavailable(
                publication.imageId(), link.registrationId(), publication.sessionId(), publication.streamId());
        }
    }

    private int trackStreamPositions()
    {
        int workCount = 0;
        final ArrayList<IpcPublication> ipcPublications = this.ipcPublications;
        for (int i = 0, size = ipcPublications.size(); i < size; i++)
        {
            workCount += ipcPublications.get(i).updatePublisherLimit();
        }

        // Network streams in turn, a batch per duty cycle: with thousands of them, visiting each on every cycle made
        // the cycle (and so every command's answer and every other stream's turn) as long as the list; a stream's
        // limit now moves within streams / batch cycles.
        final ArrayList<NetworkPublication> networkPublications = this.networkPublications;
        final int publicationCount = networkPublications.size();
        for (int i = 0, checks = Math.min(publicationCount, STREAM_POSITION_BATCH); i < checks; i++)
        {
            if (publicationCursor >= publicationCount)
            {
                publicationCursor = 0;
            }
            final NetworkPublication publication = networkPublications.get(publicationCursor++);
            workCount += publication.updatePublisherLimit();
            workCount += spyLinks.reportLapped(publication);
        }

        final ArrayList<NetworkImage> networkImages = this.networkImages;
        final int imageCount = networkImages.size();
        for (int i = 0, checks = Math.min(imageCount, STREAM_POSITION_BATCH); i < checks; i++)
        {
            if (imageCursor >= imageCount)
            {
                imageCursor = 0;
            }
            final NetworkImage image = networkImages.get(imageCursor++);
            workCount += image.trackConsumerPosition();
            if (null != image.predecessor())
            {
                workCount += announceAwaitingSubscribers(image);
            }
        }

        return workCount;
    }

    private int onTimer(final long nowNs)
    {
        timerDeadlineNs = nowNs + timerIntervalNs;
        final long nowMs = epochClock.time();
        cachedEpochClock.update(nowMs);
        toDriverCommands.consumerHeartbeatTime(nowMs);

        checkForBlockedCommands(nowNs);
        checkClientLiveness(nowMs);

        for (int i = ipcPublications.size() - 1; i >= 0; i--)
        {
            final IpcPublication publication = ipcPublications.get(i);
            if (publication.onTimeEvent(nowNs, this))
            {
                ipcPublications.remove(i);
                bytesMapped.getAndAddRelease(-publication.logLength());
                publication.close();
            }
        }

        onNetworkTimer(nowNs);
        checkAllowList(nowNs);

        return 1;
    }

    /**
     * At most once per {@link DriverAuthentication#ALLOW_LIST_CHECK_INTERVAL_NS}, read a changed allow-list again and
     * have both engines close the authenticated connections of every key it no longer holds. A changed file that
     * cannot be used goes to the error log and leaves the list in force.
     */
    private void checkAllowList(final long nowNs)
    {
        final DriverAuthentication authentication = ctx.authentication();
        if (null == authentication || nowNs - allowListDeadlineNs < 0)
        {
            return;
        }
        allowListDeadlineNs = nowNs + DriverAuthentication.ALLOW_LIST_CHECK_INTERVAL_NS;
        try
        {
            if (authentication.reloadIfChanged())
            {
                offerCommand(senderCommands, () -> senderAgent.engine().revokeUntrusted());
                offerCommand(receiverCommands, () -> receiverAgent.engine().revokeUntrusted());
            }
        }
        catch (final RuntimeException ex)
        {
            ctx.driverErrorHandler().onError(new IllegalStateException(
                "the changed allow-list is not used, the previous one stays in force: " + ex.getMessage(), ex));
        }
    }

    private void checkClientLiveness(final long nowMs)
    {
        for (int i = clients.size() - 1; i >= 0; i--)
        {
            final ClientSession client = clients.get(i);
            if (nowMs - client.timeOfLastKeepaliveMs() > clientLivenessTimeoutMs)
            {
                clientTimeouts.incrementRelease();
                clientProxy.onClientTimeout(client.clientId());
                removeClient(client);
            }
        }
    }

    private void checkForBlockedCommands(final long nowNs)
    {
        final long consumerPosition = toDriverCommands.consumerPosition();
        if (consumerPosition == lastCommandConsumerPosition && toDriverCommands.producerPosition() > consumerPosition)
        {
            if (nowNs - timeOfLastCommandConsumerPositionChangeNs > commandUnblockTimeoutNs &&
                toDriverCommands.unblock())
            {
                unblockedCommands.incrementRelease();
                timeOfLastCommandConsumerPositionChangeNs = nowNs;
            }
        }
        else
        {
            lastCommandConsumerPosition = consumerPosition;
            timeOfLastCommandConsumerPositionChangeNs = nowNs;
        }
    }

    private ClientSession findClient(final long clientId)
    {
        for (int i = 0, size = clients.size(); i < size; i++)
        {
            final ClientSession client = clients.get(i);
            if (client.clientId() == clientId)
            {
                return client;
            }
        }

        return null;
    }

    private ClientSession getOrAddClient(final long clientId)
    {
        final long nowMs = cachedEpochClock.time();
        ClientSession client = findClient(clientId);
        if (null == client)
        {
            final int counterId;
            try
            {
                counterId = streamCounter.allocateClientHeartbeat(clientId, nowMs);
            }
            catch (final IllegalStateException ex)
            {
                throw new ControlProtocolException(ControlErrorCode.LIMIT_EXCEEDED,
                    countersFull() + ": cannot allocate the heartbeat of client " + clientId);
            }

            final AtomicCounter heartbeat = new AtomicCounter(countersValuesBuffer, counterId, countersManager);
            client = new ClientSession(clientId, heartbeat, nowMs);
            clients.add(client);
            activeClients.setRelease(clients.size());
        }

        return client;
    }

    private void removeClient(final ClientSession client)
    {
        final long nowNs = nanoClock.nanoTime();
        for (int i = publicationLinks.size() - 1; i >= 0; i--)
        {
            final PublicationLink link = publicationLinks.get(i);
            if (link.client() == client)
            {
                publicationLinks.remove(i);
                link.release(nowNs);
            }
        }

        for (int i = subscriptionLinks.size() - 1; i >= 0; i--)
        {
            final SubscriptionLink link = subscriptionLinks.get(i);
            if (link.client() == client)
            {
                subscriptionLinks.remove(i);
                unlinkSubscription(link);
            }
        }

        for (int i = counterLinks.size() - 1; i >= 0; i--)
        {
            final CounterLink link = counterLinks.get(i);
            if (link.client() == client)
            {
                counterLinks.remove(i);
                countersManager.free(link.counterId());
            }
        }

        clients.remove(client);
        client.close();
        activeClients.setRelease(clients.size());
    }

    private void unlinkSubscription(final SubscriptionLink link)
    {
        if (link instanceof SpySubscriptionLink)
        {
            spyLinks.onSpyRemoved(link, networkPublications);
            return;
        }

        for (int i = 0, size = ipcPublications.size(); i < size; i++)
        {
            final SubscriberPosition subscriber = ipcPublications.get(i).removeSubscriber(link);
            if (null != subscriber)
            {
                subscriber.position().close();
            }
        }

        final ReceiveEndpoint endpoint = link.endpoint();
        if (null != endpoint)
        {
            for (int i = 0, size = networkImages.size(); i < size; i++)
            {
                final SubscriberPosition subscriber = networkImages.get(i).removeSubscriber(link);
                if (null != subscriber)
                {
                    subscriber.position().close();
                }
            }

            endpoint.decRef();
            final int streamId = link.streamId();
            offerCommand(receiverCommands, () -> endpoint.onSubscriptionRemoved(streamId));
            closeReceiveEndpointIfUnused(endpoint);
        }
    }

    private void linkSubscriber(final IpcPublication publication, final SubscriptionLink subscription)
    {
        final SubscriberPosition position = newSubscriberPosition(
            subscription, publication.sessionId(), publication.streamId(), publication.joinPosition());
        if (null != position)
        {
            publication.addSubscriber(position);
            clientProxy.onImageAvailable(
                publication.imageId(),
                subscription.registrationId(),
                publication.sessionId(),
                publication.streamId(),
                position.position().id(),
                publication.logFileName(),
                IPC_SOURCE_IDENTITY);
        }
    }

    /**
     * A subscriber position counter for a subscription joining an image at a position, or null (and an error in
     * the log) when the counters file is full: the subscription then gets no image of that session.
     */
    private SubscriberPosition newSubscriberPosition(
        final SubscriptionLink subscription, final int sessionId, final int streamId, final long joinPosition)
    {
        final int counterId;
        try
        {
            counterId = streamCounter.allocate(
                CounterTypeId.SUBSCRIBER_POSITION,
                subscription.registrationId(),
                sessionId,
                streamId,
                subscription.channel(),
                " @" + joinPosition,
                joinPosition);
        }
        catch (final IllegalStateException ex)
        {
            ctx.driverErrorHandler().onError(new IllegalStateException(countersFull() + ": subscription " +
                subscription.registrationId() + " gets no image of session " + sessionId, ex));
            return null;
        }

        return new SubscriberPosition(
            subscription, new UnsafeBufferPosition(countersValuesBuffer, counterId, countersManager));
    }

    private IpcPublication findSharedIpcPublication(final int streamId)
    {
        for (int i = 0, size = ipcPublications.size(); i < size; i++)
        {
            final IpcPublication publication = ipcPublications.get(i);
            if (!publication.isExclusive() && publication.streamId() == streamId &&
                IpcPublication.State.ACTIVE == publication.state())
            {
                return publication;
            }
        }

        return null;
    }

    private IpcPublication newIpcPublication(
        final long registrationId,
        final int streamId,
        final String channel,
        final PublicationParams params,
        final boolean exclusive)
    {
        final int sessionCount = countSessions(streamId);
        if (sessionCount >= ctx.streamSessionLimit())
        {
            throw new ControlProtocolException(ControlErrorCode.LIMIT_EXCEEDED, "stream " + streamId + " already has " +
                sessionCount + " publications: " + Configuration.STREAM_SESSION_LIMIT_PROP_NAME + " is " +
                ctx.streamSessionLimit());
        }

        if (countersManager.available() < 2)
        {
            throw new ControlProtocolException(ControlErrorCode.LIMIT_EXCEEDED,
                countersFull() + ": cannot allocate the publisher counters of stream " + streamId);
        }

        final RawLog rawLog;
        try
        {
            rawLog = logFactory.newPublication(registrationId, params.termLength, params.isSparse);
        }
        catch (final StorageSpaceException ex)
        {
            throw new ControlProtocolException(ControlErrorCode.STORAGE_SPACE, ex.getMessage());
        }

        final int sessionId = nextSessionId(streamId);
        initialiseLogMetaData(rawLog, registrationId, sessionId, streamId, params);

        final long startPosition = LogBufferDescriptor.producerPosition(
            rawLog.metaDataBuffer(),
            params.termLength,
            LogBufferDescriptor.positionBitsToShift(params.termLength),
            LogBufferDescriptor.initialTermId(rawLog.metaDataBuffer()));
        int limitId = CountersManager.NULL_COUNTER_ID;
        final int positionId;
        try
        {
            limitId = streamCounter.allocate(
                CounterTypeId.PUBLISHER_LIMIT, registrationId, sessionId, streamId, channel, "", startPosition);
            positionId = streamCounter.allocate(
                CounterTypeId.PUBLISHER_POSITION, registrationId, sessionId, streamId, channel, "", startPosition);
        }
        catch (final IllegalStateException ex)
        {
            if (CountersManager.NULL_COUNTER_ID != limitId)
            {
                countersManager.free(limitId);
            }
            rawLog.free();
            throw new ControlProtocolException(ControlErrorCode.LIMIT_EXCEEDED,
                countersFull() + ": cannot allocate the publisher counters of stream " + streamId);
        }

        final IpcPublication publication = new IpcPublication(
            registrationId,
            toDriverCommands.nextCorrelationId(),
            streamId,
            sessionId,
            exclusive,
            rawLog,
            params,
            ctx.publicationUnblockTimeoutNs(),
            new UnsafeBufferPosition(countersValuesBuffer, limitId, countersManager),
            new AtomicCounter(countersValuesBuffer, positionId, countersManager),
            systemCounters.get(SystemCounterDescriptor.UNBLOCKED_PUBLICATIONS),
            nanoClock.nanoTime());

        ipcPublications.add(publication);
        bytesMapped.getAndAddRelease(rawLog.logLength());

        return publication;
    }

    private void initialiseLogMetaData(
        final RawLog rawLog,
        final long registrationId,
        final int sessionId,
        final int streamId,
        final PublicationParams params)
    {
        final int initialTermId = params.hasPosition ? params.initialTermId : ThreadLocalRandom.current().nextInt();
        initialiseLogMetaData(
            rawLog,
            registrationId,
            sessionId,
            streamId,
            params.mtu,
            params.termWindowLength,
            initialTermId,
            params.hasPosition ? params.termId : initialTermId,
            params.hasPosition ? params.termOffset : 0);
    }

    private void initialiseLogMetaData(
        final RawLog rawLog,
        final long registrationId,
        final int sessionId,
        final int streamId,
        final int mtu,
        final int termWindowLength,
        final int initialTermId,
        final int activeTermId,
        final int termOffset)
    {
        final UnsafeBuffer metaData = rawLog.metaDataBuffer();
        final int termCount = activeTermId - initialTermId;

        HeaderWriter.writeDefaultHeader(defaultHeaderBuffer, sessionId, streamId);
        LogBufferDescriptor.initialiseMetaData(
            metaData,
            registrationId,
            initialTermId,
            mtu,
            rawLog.termLength(),
            ctx.filePageSize(),
            termWindowLength,
            defaultHeaderBuffer);

        final int activeIndex = LogBufferDescriptor.indexByTermCount(termCount);
        LogBufferDescriptor.rawTailRelease(
            metaData, activeIndex, LogBufferDescriptor.packTail(activeTermId, termOffset));
        for (int i = 1; i < LogBufferDescriptor.PARTITION_COUNT; i++)
        {
            final int expectedTermId = activeTermId + i - LogBufferDescriptor.PARTITION_COUNT;
            LogBufferDescriptor.initialiseTailWithTermId(
                metaData, LogBufferDescriptor.indexByTermCount((long)termCount + i), expectedTermId);
        }
        LogBufferDescriptor.activeTermCountRelease(metaData, termCount);
    }

    private int countSessions(final int streamId)
    {
        int count = 0;
        for (int i = 0, size = networkPublications.size(); i < size; i++)
        {
            if (networkPublications.get(i).streamId() == streamId)
            {
                count++;
            }
        }

        for (int i = 0, size = ipcPublications.size(); i < size; i++)
        {
            if (ipcPublications.get(i).streamId() == streamId)
            {
                count++;
            }
        }

        return count;
    }

    /**
     * A random session id not in use for the stream: unpredictable, so that knowing one publication's id tells an
     * off-path attacker nothing about another's (specification 18.2).
     */
    private int nextSessionId(final int streamId)
    {
        while (true)
        {
            final int sessionId = secureRandom.nextInt();
            boolean inUse = false;
            for (int i = 0, size = networkPublications.size(); i < size; i++)
            {
                final NetworkPublication publication = networkPublications.get(i);
                if (publication.streamId() == streamId && publication.sessionId() == sessionId)
                {
                    inUse = true;
                    break;
                }
            }
            for (int i = 0, size = ipcPublications.size(); i < size && !inUse; i++)
            {
                final IpcPublication publication = ipcPublications.get(i);
                if (publication.streamId() == streamId && publication.sessionId() == sessionId)
                {
                    inUse = true;
                    break;
                }
            }

            if (!inUse)
            {
                return sessionId;
            }
        }
    }

    void onNetworkPublicationDrained(final NetworkPublication publication)
    {
        publication.endpoint().decRef();
    }

    /**
     * Agent event: a receive endpoint asks for an image log (a STREAM_OPEN of an admitted stream and session).
     */
    void onImageLogRequested(final PendingImage request)
    {
        imageLogCreator.onRequest(request);
    }

    /**
     * Agent event: a receive endpoint returns an image log that no connection took.
     */
    void onImageLogReturned(final PendingImage request)
    {
        imageLogCreator.onReturned(request);
    }

    /**
     * Agent event: a stream took an image log; its image is linked to the matching subscriptions. The log's bytes were
     * counted as mapped when it was created. An image that continues an ended image of the same session (the sender
     * opened the stream again) is told to each subscriber of the earlier one only once that subscriber has read the
     * earlier one to its end.
     */
    void onNetworkImageCreated(final NetworkImage image, final PendingImage request)
    {
        imageLogCreator.onTaken(request);
        final NetworkImage predecessor = findPredecessor(image);
        if (null != predecessor)
        {
            image.predecessor(predecessor);
        }
        networkImages.add(image);
        allocateReceiverHwm(image);
        for (int i = 0, size = subscriptionLinks.size(); i < size; i++)
        {
            final SubscriptionLink subscription = subscriptionLinks.get(i);
            if (subscription.matches(image))
            {
                if (null != predecessor && predecessor.holdsUnread(subscription))
                {
                    final SubscriberPosition position = newSubscriberPosition(
                        subscription, image.sessionId(), image.streamId(), image.joinPosition());
                    if (null != position)
                    {
                        image.addAwaitingSubscriber(position);
                    }
                }
                else
                {
                    linkNetworkSubscriber(image, subscription);
                }
            }
        }
        if (image.awaitingPredecessor().isEmpty())
        {
            image.onPredecessorDone();
        }
    }

    /**
     * The ended, not yet withdrawn image of the same session on the same endpoint, whose data ends where the new
     * image starts.
     */
    private NetworkImage findPredecessor(final NetworkImage image)
    {
        final ArrayList<NetworkImage> networkImages = this.networkImages;
        for (int i = networkImages.size() - 1; i >= 0; i--)
        {
            final NetworkImage candidate = networkImages.get(i);
            if (NetworkImage.State.DRAINING == candidate.state() && candidate.endpoint() == image.endpoint() &&
                candidate.streamId() == image.streamId() && candidate.sessionId() == image.sessionId() &&
                candidate.initialTermId() == image.initialTermId() && candidate.termLength() == image.termLength())
            {
                return candidate;
            }
        }

        return null;
    }

    /**
     * Tell the subscribers that waited for an image's predecessor of the image, each once it has read the predecessor
     * to its end (or left it, or it was withdrawn).
     */
    private int announceAwaitingSubscribers(final NetworkImage image)
    {
        final NetworkImage predecessor = image.predecessor();
        final ArrayList<SubscriberPosition> awaiting = image.awaitingPredecessor();
        int workCount = 0;
        for (int i = awaiting.size() - 1; i >= 0; i--)
        {
            final SubscriberPosition subscriber = awaiting.get(i);
            if (!predecessor.holdsUnread(subscriber.subscription()))
            {
                awaiting.remove(i);
                announceNetworkImage(image, subscriber);
                workCount++;
            }
        }
        if (awaiting.isEmpty())
        {
            image.onPredecessorDone();
        }

        return workCount;
    }

    /**
     * The image's receiver high-water counter, or none (and an error in the log) when the counters file is full: the
     * stream still flows, only the tools cannot show its receiver backlog.
     */
    private void allocateReceiverHwm(final NetworkImage image)
    {
        try
        {
            final int counterId = streamCounter.allocate(
                CounterTypeId.RECEIVER_HWM,
                image.correlationId(),
                image.sessionId(),
                image.streamId(),
                image.endpoint().channel().canonicalForm(),
                "",
                image.joinPosition());
            image.receiverHwm(new UnsafeBufferPosition(countersValuesBuffer, counterId, countersManager));
        }
        catch (final IllegalStateException ex)
        {
            ctx.driverErrorHandler().onError(new IllegalStateException(countersFull() + ": image of stream " +
                image.streamId() + " session " + image.sessionId() + " gets no rcv-hwm counter", ex));
        }
    }

    /**
     * Agent event: an image's stream ended; the image drains.
     *
     * @param image the image.
     */
    void onNetworkImageEnded(final NetworkImage image)
    {
        image.onConnectionEnded(nanoClock.nanoTime());
    }

    private void onAddNetworkPublication(
        final long clientId,
        final long correlationId,
        final int streamId,
        final UdpChannel channel,
        final boolean exclusive)
    {
        final ClientSession client = getOrAddClient(clientId);
        NetworkPublication publication = exclusive ? null : findSharedNetworkPublication(streamId, channel);
        if (null == publication)
        {
            publication = newNetworkPublication(correlationId, streamId, channel, exclusive);
        }

        publication.incRef();
        publicationLinks.add(new PublicationLink(correlationId, client, publication));
        clientProxy.onPublicationReady(
            correlationId,
            publication.registrationId(),
            publication.sessionId(),
            streamId,
            publication.publisherLimitId(),
            publication.endpoint().localAddressCounterId(),
            exclusive,
            publication.logFileName());
    }

    private NetworkPublication findSharedNetworkPublication(final int streamId, final UdpChannel channel)
    {
        for (int i = 0, size = networkPublications.size(); i < size; i++)
        {
            final NetworkPublication publication = networkPublications.get(i);
            if (!publication.isExclusive() && publication.streamId() == streamId &&
                NetworkPublication.State.ACTIVE == publication.state() &&
                publication.channel().canonicalForm().equals(channel.canonicalForm()))
            {
                return publication;
            }
        }

        return null;
    }

    private NetworkPublication newNetworkPublication(
        final long registrationId, final int streamId, final UdpChannel channel, final boolean exclusive)
    {
        final int sessionCount = countSessions(streamId);
        if (sessionCount >= ctx.streamSessionLimit())
        {
            throw new ControlProtocolException(ControlErrorCode.LIMIT_EXCEEDED, "stream " + streamId + " already has " +
                sessionCount + " publications: " + Configuration.STREAM_SESSION_LIMIT_PROP_NAME + " is " +
                ctx.streamSessionLimit());
        }
        checkCommandSpace(senderCommands, "sender");
        final SendEndpoint endpoint = sendEndpoint(channel);
        final RawLog rawLog;
        try
        {
            rawLog = newPublicationLog(registrationId, streamId, channel);
        }
        catch (final RuntimeException ex)
        {
            closeSendEndpointIfUnused(endpoint);
            throw ex;
        }

        final int sessionId = nextSessionId(streamId);
        final int initialTermId = ThreadLocalRandom.current().nextInt();
        initialiseLogMetaData(rawLog, registrationId, sessionId, streamId,
            channel.frameMtu(endpoint.datagramOverhead()),
            channel.termWindowLength, initialTermId, initialTermId, 0);

        final String label = channel.canonicalForm();
        final long startPosition = 0;
        final int limitId = streamCounter.allocate(
            CounterTypeId.PUBLISHER_LIMIT, registrationId, sessionId, streamId, label, "", startPosition);
        final int positionId = streamCounter.allocate(
            CounterTypeId.PUBLISHER_POSITION, registrationId, sessionId, streamId, label, "", startPosition);
        final int senderPositionId = streamCounter.allocate(
            CounterTypeId.SENDER_ACKNOWLEDGED_POSITION, registrationId, sessionId, streamId, label, "", startPosition);

        final NetworkPublication publication = new NetworkPublication(
            registrationId,
            exclusive,
            channel,
            rawLog,
            new UnsafeBufferPosition(countersValuesBuffer, limitId, countersManager),
            new AtomicCounter(countersValuesBuffer, positionId, countersManager),
            new UnsafeBufferPosition(countersValuesBuffer, senderPositionId, countersManager),
            endpoint,
            ctx.publicationUnblockTimeoutNs(),
            systemCounters.get(SystemCounterDescriptor.UNBLOCKED_PUBLICATIONS),
            nanoClock.nanoTime());
        if (channel.isMultiDestination)
        {
            publication.destinations(
                new PublicationDestinations(publication, channel, systemCounters, ctx.driverErrorHandler()));
        }

        networkPublications.add(publication);
        bytesMapped.getAndAddRelease(rawLog.logLength());
        spyLinks.onPublicationAdded(publication, subscriptionLinks);
        endpoint.incRef();
        offerCommand(senderCommands, () -> senderAgent.onAddPublication(endpoint, publication));

        return publication;
    }

    private RawLog newPublicationLog(final long registrationId, final int streamId, final UdpChannel channel)
    {
        if (countersManager.available() < 3)
        {
            throw new ControlProtocolException(ControlErrorCode.LIMIT_EXCEEDED,
                countersFull() + ": cannot allocate the publisher counters of stream " + streamId);
        }

        try
        {
            return logFactory.newPublication(registrationId, channel.termLength, channel.isSparse);
        }
        catch (final StorageSpaceException ex)
        {
            throw new ControlProtocolException(ControlErrorCode.STORAGE_SPACE, ex.getMessage());
        }
    }

    /**
     * Release a send endpoint when no publication uses it any more: its reference count (publications not yet
     * drained) is zero and no draining or lingering publication is still on it. The sender closes it once its
     * connections have lingered and closed; a publication that names it meanwhile takes it back.
     */
    private void closeSendEndpointIfUnused(final SendEndpoint endpoint)
    {
        if (endpoint.refCount() > 0 || !endpoint.lifecycle().isOpen())
        {
            return;
        }

        for (int i = 0, size = networkPublications.size(); i < size; i++)
        {
            if (networkPublications.get(i).endpoint() == endpoint)
            {
                return;
            }
        }

        endpoint.lifecycle().requestClose();
        offerCommand(senderCommands, () -> senderAgent.onCloseEndpoint(
            endpoint, () -> offerAgentEvent(() -> onSendEndpointClosed(endpoint))));
    }

    /**
     * The sender closed an endpoint (or the conductor waited for it to): forget it, unless a fresh endpoint
     * already took its place.
     */
    private void onSendEndpointClosed(final SendEndpoint endpoint)
    {
        freeLocalAddressCounter(endpoint.takeLocalAddressCounterId());
        if (sendEndpoints.get(endpoint.key()) == endpoint)
        {
            sendEndpoints.remove(endpoint.key());
            sendEndpointCount.decrementRelease();
        }
    }

    /**
     * Release a receive endpoint whose last subscription was removed. The receiver closes it.
     */
    private void closeReceiveEndpointIfUnused(final ReceiveEndpoint endpoint)
    {
        if (endpoint.refCount() > 0 || !endpoint.lifecycle().isOpen())
        {
            return;
        }

        endpoint.lifecycle().requestClose();
        offerCommand(receiverCommands, () ->
        {
            if (receiverAgent.onCloseEndpoint(endpoint))
            {
                offerAgentEvent(() -> onReceiveEndpointClosed(endpoint));
            }
        });
    }

    /**
     * The credit schedulers of the receiving links, for tests that run the driver with INVOKER threading.
     */
    CreditLinks creditLinks()
    {
        return creditLinks;
    }

    /**
     * The receiver closed an endpoint (or the conductor waited for it to): forget it and release its credit link,
     * unless a fresh endpoint already took its place. Its images were reported ended by the engine's close, before
     * this event.
     */
    private void onReceiveEndpointClosed(final ReceiveEndpoint endpoint)
    {
        freeLocalAddressCounter(endpoint.takeLocalAddressCounterId());
        final String key = endpoint.channel().receiveEndpointKey();
        if (receiveEndpoints.get(key) == endpoint)
        {
            receiveEndpoints.remove(key);
            receiveEndpointCount.decrementRelease();
            creditLinks.release(endpoint.channel());
        }
    }

    private SendEndpoint sendEndpoint(final UdpChannel channel)
    {
        final String key = channel.sendEndpointKey();
        SendEndpoint endpoint = sendEndpoints.get(key);
        if (null != endpoint && !endpoint.lifecycle().isOpen() && !endpoint.lifecycle().tryReopen())
        {
            endpoint.lifecycle().awaitClosed();
            onSendEndpointClosed(endpoint);
            endpoint = null;
        }

        if (null == endpoint)
        {
            final InetAddress[] interfaces = channel.resolveInterfaces();
            final PacketTransport transport;
            try
            {
                transport = ctx.transportFactory().open(
                    channel.transportSpec(interfaces, 0, newLossStage()).pollGroup(senderAgent.pollGroup()));
            }
            catch (final IOException | RuntimeException ex)
            {
                throw UdpChannel.invalid("parameter 'interface': cannot bind the send sockets on " +
                    Arrays.toString(interfaces) + ": " + ex.getMessage());
            }

            try
            {
                TransportEngine.reserveTransportOverhead(ctx.engineSettings(), transport.datagramOverhead());
                endpoint = new SendEndpoint(key, transport, senderAgent.engine(), lossReport, epochClock,
                    systemCounters, ctx.driverErrorHandler());
                endpoint.localAddressCounterId(streamCounter.allocateLocalSocketAddress(
                    "snd-local-addr", AddressText.boundAddresses(transport)));
            }
            catch (final RuntimeException ex)
            {
                CloseHelper.quietClose(transport);
                throw new ControlProtocolException(ControlErrorCode.LIMIT_EXCEEDED,
                    "cannot create the send endpoint of " + channel.canonicalForm() + ": " + ex.getMessage());
            }

            final SendEndpoint newEndpoint = endpoint;
            sendEndpoints.put(key, newEndpoint);
            sendEndpointCount.incrementRelease();
            offerCommand(senderCommands, () -> senderAgent.onAddEndpoint(newEndpoint));
        }

        return endpoint;
    }

    private void onAddNetworkSubscription(
        final long clientId, final long correlationId, final int streamId, final UdpChannel channel)
    {
        final ClientSession client = getOrAddClient(clientId);
        checkCommandSpace(receiverCommands, "receiver");
        final ReceiveEndpoint endpoint = receiveEndpoint(channel);

        // a subscription on port 0 is known by the port its endpoint was bound to
        final String canonicalChannel = 0 == channel.port ?
            endpoint.channel().canonicalForm() : channel.canonicalForm();
        final SubscriptionLink subscription = new SubscriptionLink(
            correlationId, client, streamId, canonicalChannel, endpoint);
        subscriptionLinks.add(subscription);
        endpoint.incRef();
        offerCommand(receiverCommands, () -> endpoint.onSubscriptionAdded(streamId));
        clientProxy.onSubscriptionReady(correlationId, endpoint.localAddressCounterId());

        for (int i = 0, size = networkImages.size(); i < size; i++)
        {
            final NetworkImage image = networkImages.get(i);
            if (NetworkImage.State.ACTIVE == image.state() && subscription.matches(image))
            {
                linkNetworkSubscriber(image, subscription);
            }
        }
    }

    private ReceiveEndpoint receiveEndpoint(final UdpChannel channel)
    {
        // port 0 asks the kernel for a port no endpoint has: it opens an endpoint of its own
        final ReceiveEndpoint existing = 0 == channel.port ? null : receiveEndpoints.get(channel.receiveEndpointKey());
        if (null != existing)
        {
            if (existing.lifecycle().isOpen() || existing.lifecycle().tryReopen())
            {
                try
                {
                    channel.checkSameEndpointSettings(existing.channel());
                }
                catch (final RuntimeException ex)
                {
                    closeReceiveEndpointIfUnused(existing);
                    throw ex;
                }
                return existing;
            }

            existing.lifecycle().awaitClosed();
            onReceiveEndpointClosed(existing);
        }

        final InetAddress[] addresses = new InetAddress[channel.planeCount()];
        for (int i = 0; i < addresses.length; i++)
        {
            addresses[i] = channel.endpoints[i].getAddress();
        }

        final SharedCreditScheduler creditScheduler;
        try
        {
            creditScheduler = creditLinks.acquire(channel);
        }
        catch (final ControlProtocolException ex)
        {
            throw ex;
        }
        catch (final RuntimeException ex)
        {
            throw new ControlProtocolException(ControlErrorCode.LIMIT_EXCEEDED,
                "cannot create the receive endpoint of " + channel.canonicalForm() + ": " + ex.getMessage());
        }

        final PacketTransport transport;
        try
        {
            transport = ctx.transportFactory().open(
                channel.transportSpec(addresses, channel.port, newLossStage()).pollGroup(receiverAgent.pollGroup()));
        }
        catch (final IOException | RuntimeException ex)
        {
            creditLinks.release(channel);
            throw UdpChannel.invalid("parameter 'endpoint': cannot bind the receive sockets on " +
                channel.endpointList() + ": " + ex.getMessage());
        }

        final ReceiveEndpoint newEndpoint;
        try
        {
            TransportEngine.reserveTransportOverhead(channel.engineSettings, transport.datagramOverhead());
            final UdpChannel bound = 0 == channel.port ? channel.withBoundPort(transport.localPort(), ctx) : channel;
            newEndpoint = new ReceiveEndpoint(bound, transport, receiverAgent.engine(), creditScheduler, this,
                toDriverCommands, ctx.driverErrorHandler());
            newEndpoint.localAddressCounterId(streamCounter.allocateLocalSocketAddress(
                "rcv-local-addr", AddressText.boundAddresses(transport)));
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietClose(transport);
            creditLinks.release(channel);
            throw new ControlProtocolException(ControlErrorCode.LIMIT_EXCEEDED,
                "cannot create the receive endpoint of " + channel.canonicalForm() + ": " + ex.getMessage());
        }

        final String key = newEndpoint.channel().receiveEndpointKey();
        final ReceiveEndpoint closedEarlier = receiveEndpoints.get(key);
        if (null != closedEarlier)
        {
            // the kernel handed out the port of an endpoint that closed its sockets and is not forgotten yet
            closedEarlier.lifecycle().awaitClosed();
            onReceiveEndpointClosed(closedEarlier);
        }
        receiveEndpoints.put(key, newEndpoint);
        receiveEndpointCount.incrementRelease();
        offerCommand(receiverCommands, () -> receiverAgent.onAddEndpoint(newEndpoint));

        return newEndpoint;
    }

    private void freeLocalAddressCounter(final int counterId)
    {
        if (CountersReader.NULL_COUNTER_ID != counterId)
        {
            countersManager.free(counterId);
        }
    }

    private LossGenerator newLossStage()
    {
        final NetworkLossGenerator generator = ctx.lossGenerator();
        return null == generator ? null : generator.newStage(nextLossStageId++);
    }

    private void linkNetworkSubscriber(final NetworkImage image, final SubscriptionLink subscription)
    {
        final SubscriberPosition position = newSubscriberPosition(
            subscription, image.sessionId(), image.streamId(), image.subscriberJoinPosition());
        if (null != position)
        {
            image.addSubscriber(position);
            announceNetworkImage(image, position);
        }
    }

    private void announceNetworkImage(final NetworkImage image, final SubscriberPosition position)
    {
        clientProxy.onImageAvailable(
            image.correlationId(),
            position.subscription().registrationId(),
            image.sessionId(),
            image.streamId(),
            position.position().id(),
            image.logFileName(),
            image.sourceIdentity());
    }

    private void onNetworkTimer(final long nowNs)
    {
        for (int i = networkPublications.size() - 1; i >= 0; i--)
        {
            final NetworkPublication publication = networkPublications.get(i);
            if (publication.onTimeEvent(nowNs, this))
            {
                spyLinks.onPublicationClosed(publication);
                networkPublications.remove(i);
                bytesMapped.getAndAddRelease(-publication.logLength());
                publication.close();
                closeSendEndpointIfUnused(publication.endpoint());
            }
        }

        final long lingerTimeoutNs = ctx.publicationLingerTimeoutNs();
        for (int i = networkImages.size() - 1; i >= 0; i--)
        {
            final NetworkImage image = networkImages.get(i);
            if (image.isReadyToWithdraw())
            {
                final ArrayList<SubscriberPosition> subscribers = image.subscribers();
                for (int j = subscribers.size() - 1; j >= 0; j--)
                {
                    final SubscriberPosition subscriber = subscribers.get(j);
                    subscriber.position().close();
                    if (image.isAnnounced(subscriber))
                    {
                        clientProxy.onImageUnavailable(image.correlationId(),
                            subscriber.subscription().registrationId(), image.sessionId(), image.streamId());
                    }
                }
                image.onWithdrawn(nowNs);
            }
            else if (image.onTimeEvent(nowNs, lingerTimeoutNs))
            {
                networkImages.remove(i);
                bytesMapped.getAndAddRelease(-image.logLength());
                image.close();
            }
        }
    }

    private int drainAgentEvents()
    {
        int workCount = 0;
        Runnable event;
        while (null != (event = agentEvents.poll()))
        {
            event.run();
            workCount++;
        }

        return workCount;
    }

    /**
     * The start of every "counters file full" message: it names the setting to raise, its value and its capacity.
     */
    private String countersFull()
    {
        return "counters file full (" + Configuration.COUNTERS_BUFFER_LENGTH_PROP_NAME + "=" +
            countersValuesBuffer.capacity() + " holds " + (countersManager.maxCounterId() + 1) + " counters)";
    }

    private static void checkCommandSpace(final TransportCommandQueue queue, final String agent)
    {
        if (queue.size() > TransportCommandQueue.CAPACITY - 4)
        {
            throw new ControlProtocolException(ControlErrorCode.LIMIT_EXCEEDED,
                "the " + agent + " agent's command queue is full: retry");
        }
    }

    private void offerCommand(final TransportCommandQueue queue, final Runnable command)
    {
        if (!queue.offer(command))
        {
            ctx.driverErrorHandler().onError(new IllegalStateException("transport command queue full: command lost"));
        }
    }

    private static ChannelUri parseChannel(final String channel)
    {
        final ChannelUri uri;
        try
        {
            uri = ChannelUri.parse(channel);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ControlProtocolException(ControlErrorCode.INVALID_CHANNEL, ex.getMessage());
        }

        if (!uri.isIpc() && !ChannelUri.UDP_MEDIA.equals(uri.media()))
        {
            throw new ControlProtocolException(ControlErrorCode.INVALID_CHANNEL,
                "unknown media '" + uri.media() + "' in channel '" + channel + "': expected ipc or udp");
        }

        return uri;
    }

    private static void checkStreamId(final int streamId)
    {
        if (0 == streamId)
        {
            throw new ControlProtocolException(ControlErrorCode.INVALID_STREAM_ID,
                "stream id 0 is reserved: use any other 32-bit value");
        }
    }
}
