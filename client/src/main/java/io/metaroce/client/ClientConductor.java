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
package io.metaroce.client;

import io.metaroce.client.cnc.CncFile;
import io.metaroce.client.command.DriverEventsAdapter;
import io.metaroce.client.command.DriverEventsHandler;
import io.metaroce.client.command.DriverProxy;
import io.metaroce.client.exceptions.ClientTimeoutException;
import io.metaroce.client.exceptions.DriverTimeoutException;
import io.metaroce.client.exceptions.MetaRoceException;
import io.metaroce.client.exceptions.RegistrationException;
import io.metaroce.client.logbuffer.LogBuffers;
import io.metaroce.client.status.ClientHeartbeat;
import io.metaroce.codec.control.ControlErrorCode;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.broadcast.BroadcastReceiver;
import org.agrona.concurrent.broadcast.CopyBroadcastReceiver;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;
import org.agrona.concurrent.status.UnsafeBufferPosition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The client's agent: sends commands through the {@link DriverProxy}, processes the driver's events, keeps the
 * client alive (a CLIENT_KEEPALIVE every keepalive interval, and its heartbeat counter), watches the driver's
 * heartbeat, and maps and unmaps log buffers, keeping
 * released ones mapped for a linger period so that a poll or offer in flight on another thread never faults.
 * <p>
 * Every API call and every duty cycle runs under the client lock. A call that needs an answer sends its command and
 * then runs the duty cycle itself, on the caller's thread, until the answer arrives or the driver timeout passes;
 * the conductor's own thread (or invoker) only runs the duty cycle when the lock is free.
 * <p>
 * If the driver stops heartbeating, the broadcast laps the client, or the driver times the client out, the
 * conductor terminates: every publication, subscription and counter is closed, the error handler is told, and every
 * later API call throws the same kind of exception ({@link DriverTimeoutException}, {@link ClientTimeoutException}).
 */
final class ClientConductor implements Agent, DriverEventsHandler
{
    private static final int EVENTS_PER_DUTY_CYCLE = 1024;

    /**
     * Room for the longest event: an image-available with two 4096-byte texts, or an error with a 4096-byte message.
     */
    private static final int EVENT_SCRATCH_LENGTH = 16 * 1024;
    private static final int NULL_COUNTER_ID = CountersReader.NULL_COUNTER_ID;

    private final ReentrantLock clientLock;
    private final CncFile cncFile;
    private final DriverProxy driverProxy;
    private final DriverEventsAdapter driverEventsAdapter;
    private final CountersReader countersReader;
    private final UnsafeBuffer countersValuesBuffer;
    private final ErrorHandler errorHandler;
    private final EpochClock epochClock;
    private final NanoClock nanoClock;
    private final IdleStrategy awaitingIdleStrategy;
    private final long keepaliveIntervalNs;
    private final long driverTimeoutMs;
    private final long driverTimeoutNs;
    private final long resourceLingerDurationNs;
    private final Long2ObjectHashMap<Object> resourceByRegistrationId = new Long2ObjectHashMap<>();
    private final Long2ObjectHashMap<PendingRegistration> pendingRegistrations = new Long2ObjectHashMap<>();
    private final Map<String, LogBuffers> logBuffersByFileName = new HashMap<>();
    private final ArrayList<LogBuffers> lingeringLogBuffers = new ArrayList<>();

    private AtomicCounter heartbeatCounter;
    private long timeOfLastKeepaliveNs;
    private volatile boolean isClosed;
    private volatile MetaRoceException terminalCause;

    private ControlErrorCode responseErrorCode;
    private String responseErrorMessage;
    private long responseRegistrationId;
    private int responseSessionId;
    private final AgentInvoker driverAgentInvoker;
    private int responseCounterId;
    private int responseChannelStatusId;
    private String responseLogFileName;

    ClientConductor(final MetaRoce.Context ctx, final CncFile cncFile)
    {
        final ManyToOneRingBuffer toDriverCommands = new ManyToOneRingBuffer(cncFile.toDriverBuffer());
        this.clientLock = ctx.clientLock();
        this.cncFile = cncFile;
        this.errorHandler = ctx.errorHandler();
        this.driverProxy = new DriverProxy(toDriverCommands, toDriverCommands.nextCorrelationId());
        this.driverEventsAdapter = new DriverEventsAdapter(
            new CopyBroadcastReceiver(new BroadcastReceiver(cncFile.toClientsBuffer()), EVENT_SCRATCH_LENGTH),
            this,
            errorHandler);
        this.countersReader = cncFile.newCountersReader();
        this.countersValuesBuffer = cncFile.countersValuesBuffer();
        this.epochClock = ctx.epochClock();
        this.nanoClock = ctx.nanoClock();
        this.awaitingIdleStrategy = ctx.awaitingIdleStrategy();
        this.driverAgentInvoker = ctx.driverAgentInvoker();
        this.keepaliveIntervalNs = ctx.keepaliveIntervalNs();
        this.driverTimeoutMs = ctx.driverTimeoutMs();
        this.driverTimeoutNs = TimeUnit.MILLISECONDS.toNanos(driverTimeoutMs);
        this.resourceLingerDurationNs = ctx.resourceLingerDurationNs();
        this.timeOfLastKeepaliveNs = nanoClock.nanoTime();

        driverProxy.sendClientKeepalive();
    }

    /**
     * {@inheritDoc}
     */
    public String roleName()
    {
        return "metaroce-client-conductor";
    }

    /**
     * {@inheritDoc}
     */
    public int doWork()
    {
        int workCount = 0;
        if (clientLock.tryLock())
        {
            try
            {
                if (!isClosed)
                {
                    workCount = service();
                }
            }
            finally
            {
                clientLock.unlock();
            }
        }

        return workCount;
    }

    /**
     * {@inheritDoc}
     */
    public void onClose()
    {
        clientLock.lock();
        try
        {
            if (!isClosed)
            {
                isClosed = true;
                if (null == terminalCause)
                {
                    driverProxy.clientClose();
                }
                forceCloseResources();
                for (final LogBuffers logBuffers : lingeringLogBuffers)
                {
                    logBuffers.close();
                }
                lingeringLogBuffers.clear();
            }
        }
        finally
        {
            clientLock.unlock();
        }
    }

    long clientId()
    {
        return driverProxy.clientId();
    }

    CountersReader countersReader()
    {
        return countersReader;
    }

    boolean isTerminated()
    {
        return isClosed || null != terminalCause;
    }

    ConcurrentPublication addPublication(final String channel, final int streamId)
    {
        return (ConcurrentPublication)addPublication(channel, streamId, false);
    }

    ExclusivePublication addExclusivePublication(final String channel, final int streamId)
    {
        return (ExclusivePublication)addPublication(channel, streamId, true);
    }

    private Publication addPublication(final String channel, final int streamId, final boolean exclusive)
    {
        clientLock.lock();
        try
        {
            ensureActive();
            final long correlationId = driverProxy.addPublication(channel, streamId, exclusive);
            awaitResponse(correlationId);

            return newPublication(channel, streamId, exclusive, correlationId, responseRegistrationId,
                responseSessionId, responseCounterId, responseChannelStatusId, responseLogFileName);
        }
        finally
        {
            clientLock.unlock();
        }
    }

    /**
     * Map a publication the driver made ready and register it.
     *
     * @throws MetaRoceException when its log cannot be mapped; the driver is asked to remove the publication.
     */
    private Publication newPublication(
        final String channel,
        final int streamId,
        final boolean exclusive,
        final long correlationId,
        final long registrationId,
        final int sessionId,
        final int limitCounterId,
        final int channelStatusId,
        final String logFileName)
    {
        final LogBuffers logBuffers;
        try
        {
            logBuffers = logBuffers(logFileName);
        }
        catch (final RuntimeException ex)
        {
            driverProxy.removePublication(correlationId);
            throw new MetaRoceException("failed to map the log of publication " + correlationId, ex);
        }

        final UnsafeBufferPosition limit = new UnsafeBufferPosition(countersValuesBuffer, limitCounterId);
        final Publication publication = exclusive ?
            new ExclusivePublication(this, channel, streamId, sessionId, limit, logBuffers, registrationId,
                correlationId) :
            new ConcurrentPublication(this, channel, streamId, sessionId, limit, logBuffers, registrationId,
                correlationId);
        publication.channelStatusId(channelStatusId);
        resourceByRegistrationId.put(correlationId, publication);

        return publication;
    }

    /**
     * Send an ADD_PUBLICATION, ADD_EXCLUSIVE_PUBLICATION or ADD_SUBSCRIPTION and return without waiting: the
     * answer is kept until {@link #pendingResource} collects it.
     *
     * @return the registration id.
     */
    long asyncAdd(
        final PendingRegistration.Kind kind,
        final String channel,
        final int streamId,
        final AvailableImageHandler availableImageHandler,
        final UnavailableImageHandler unavailableImageHandler)
    {
        clientLock.lock();
        try
        {
            ensureActive();
            final long correlationId = PendingRegistration.Kind.SUBSCRIPTION == kind ?
                driverProxy.addSubscription(channel, streamId) :
                driverProxy.addPublication(channel, streamId, PendingRegistration.Kind.EXCLUSIVE_PUBLICATION == kind);
            pendingRegistrations.put(correlationId, new PendingRegistration(kind, channel, streamId,
                availableImageHandler, unavailableImageHandler, nanoClock.nanoTime() + driverTimeoutNs));
            driverEventsAdapter.addAsyncCorrelationId(correlationId);

            return correlationId;
        }
        finally
        {
            clientLock.unlock();
        }
    }

    /**
     * The resource of an asynchronous add: null while the driver has not answered, the resource once it has (and on
     * every later call), or the driver's refusal thrown once.
     *
     * @param registrationId returned by {@link #asyncAdd}.
     * @param type           the resource's class.
     * @return the resource, or null while pending.
     * @throws MetaRoceException the refusal, or when the id names no resource of the type.
     */
    <T> T pendingResource(final long registrationId, final Class<T> type)
    {
        clientLock.lock();
        try
        {
            ensureActive();
            PendingRegistration pending = pendingRegistrations.get(registrationId);
            if (null != pending && null == pending.failure)
            {
                final AgentInvoker driverInvoker = this.driverAgentInvoker;
                if (null != driverInvoker)
                {
                    driverInvoker.invoke();
                }
                service();
                pending = pendingRegistrations.get(registrationId);
            }
            if (null != pending)
            {
                if (null == pending.failure)
                {
                    return null;
                }
                if (!pending.timedOut)
                {
                    pendingRegistrations.remove(registrationId);
                }
                throw pending.failure;
            }

            final Object resource = resourceByRegistrationId.get(registrationId);
            if (!type.isInstance(resource))
            {
                throw new MetaRoceException("registration id " + registrationId + " names no " +
                    type.getSimpleName() + " of this client" + (null == resource ? "" : " but a " +
                    resource.getClass().getSimpleName()));
            }

            return type.cast(resource);
        }
        finally
        {
            clientLock.unlock();
        }
    }

    /**
     * An answer to an asynchronous add: build its resource, or keep the failure for the application; a late answer
     * to an add the client gave up on is undone.
     */
    private void onAsyncReady(
        final long correlationId,
        final PendingRegistration pending,
        final long registrationId,
        final int sessionId,
        final int limitCounterId,
        final int channelStatusId,
        final String logFileName)
    {
        driverEventsAdapter.removeAsyncCorrelationId(correlationId);
        final boolean isSubscription = PendingRegistration.Kind.SUBSCRIPTION == pending.kind;
        if (pending.timedOut)
        {
            pendingRegistrations.remove(correlationId);
            if (isSubscription)
            {
                driverProxy.removeSubscription(correlationId);
            }
            else
            {
                driverProxy.removePublication(correlationId);
            }
            return;
        }

        try
        {
            if (isSubscription)
            {
                final Subscription subscription = new Subscription(this, pending.channel, pending.streamId,
                    correlationId, pending.availableImageHandler, pending.unavailableImageHandler);
                subscription.channelStatusId(channelStatusId);
                resourceByRegistrationId.put(correlationId, subscription);
            }
            else
            {
                newPublication(pending.channel, pending.streamId,
                    PendingRegistration.Kind.EXCLUSIVE_PUBLICATION == pending.kind, correlationId, registrationId,
                    sessionId, limitCounterId, channelStatusId, logFileName);
            }
            pendingRegistrations.remove(correlationId);
        }
        catch (final MetaRoceException ex)
        {
            pending.failure = ex;
        }
    }

    /**
     * Give up on asynchronous adds the driver did not answer within the driver timeout.
     */
    private void expirePendingRegistrations(final long nowNs)
    {
        if (pendingRegistrations.isEmpty())
        {
            return;
        }

        final Long2ObjectHashMap<PendingRegistration>.EntryIterator entries =
            pendingRegistrations.entrySet().iterator();
        while (entries.hasNext())
        {
            entries.next();
            final PendingRegistration pending = entries.getValue();
            if (null == pending.failure && nowNs - pending.deadlineNs > 0)
            {
                pending.timedOut = true;
                pending.failure = new DriverTimeoutException("no response from the media driver in " +
                    cncFile.file().getParent() + " within " + driverTimeoutMs + " ms to command " +
                    entries.getLongKey());
            }
        }
    }

    /**
     * Send an ADD_DESTINATION or REMOVE_DESTINATION for a publication and wait for the answer.
     *
     * @throws io.metaroce.client.exceptions.RegistrationException the driver's refusal.
     */
    void destinationCommand(final Publication publication, final String channel, final boolean add)
    {
        clientLock.lock();
        try
        {
            ensureActive();
            ensureOpen(publication);
            awaitResponse(add ? driverProxy.addDestination(publication.registrationId(), channel) :
                driverProxy.removeDestination(publication.registrationId(), channel));
        }
        finally
        {
            clientLock.unlock();
        }
    }

    /**
     * Send an ADD_DESTINATION or REMOVE_DESTINATION and return without waiting: {@link #isCommandActive} tells
     * when the driver answered.
     *
     * @return the command's correlation id.
     */
    long asyncDestinationCommand(final Publication publication, final String channel, final boolean add)
    {
        clientLock.lock();
        try
        {
            ensureActive();
            ensureOpen(publication);
            final long correlationId = add ? driverProxy.addDestination(publication.registrationId(), channel) :
                driverProxy.removeDestination(publication.registrationId(), channel);
            pendingRegistrations.put(correlationId, new PendingRegistration(PendingRegistration.Kind.DESTINATION,
                channel, publication.streamId(), null, null, nanoClock.nanoTime() + driverTimeoutNs));
            driverEventsAdapter.addAsyncCorrelationId(correlationId);

            return correlationId;
        }
        finally
        {
            clientLock.unlock();
        }
    }

    /**
     * Is an asynchronous destination command still waiting for the driver's answer?
     *
     * @param correlationId returned by {@link #asyncDestinationCommand}.
     * @return true while pending, false once it succeeded (or for an id this client is not waiting for).
     * @throws MetaRoceException the driver's refusal or the timeout, once.
     */
    boolean isCommandActive(final long correlationId)
    {
        clientLock.lock();
        try
        {
            ensureActive();
            PendingRegistration pending = pendingRegistrations.get(correlationId);
            if (null != pending && null == pending.failure)
            {
                final AgentInvoker driverInvoker = this.driverAgentInvoker;
                if (null != driverInvoker)
                {
                    driverInvoker.invoke();
                }
                service();
                pending = pendingRegistrations.get(correlationId);
            }
            if (null == pending || PendingRegistration.Kind.DESTINATION != pending.kind)
            {
                return false;
            }
            if (null == pending.failure)
            {
                return true;
            }
            if (!pending.timedOut)
            {
                pendingRegistrations.remove(correlationId);
            }
            throw pending.failure;
        }
        finally
        {
            clientLock.unlock();
        }
    }

    private static void ensureOpen(final Publication publication)
    {
        if (publication.isClosed())
        {
            throw new MetaRoceException("publication " + publication.registrationId() + " is closed");
        }
    }

    void releasePublication(final Publication publication)
    {
        clientLock.lock();
        try
        {
            if (publication.isClosed())
            {
                return;
            }

            publication.internalClose();
            resourceByRegistrationId.remove(publication.registrationId());
            releaseLogBuffers(publication.logBuffers);
            if (!isTerminated())
            {
                awaitResponse(driverProxy.removePublication(publication.registrationId()));
            }
        }
        finally
        {
            clientLock.unlock();
        }
    }

    Subscription addSubscription(
        final String channel,
        final int streamId,
        final AvailableImageHandler availableImageHandler,
        final UnavailableImageHandler unavailableImageHandler)
    {
        clientLock.lock();
        try
        {
            ensureActive();
            final long correlationId = driverProxy.addSubscription(channel, streamId);
            final Subscription subscription = new Subscription(
                this, channel, streamId, correlationId, availableImageHandler, unavailableImageHandler);
            resourceByRegistrationId.put(correlationId, subscription);

            try
            {
                awaitResponse(correlationId);
            }
            catch (final RuntimeException ex)
            {
                resourceByRegistrationId.remove(correlationId);
                subscription.internalClose();
                throw ex;
            }
            subscription.channelStatusId(responseChannelStatusId);

            return subscription;
        }
        finally
        {
            clientLock.unlock();
        }
    }

    void releaseSubscription(final Subscription subscription)
    {
        clientLock.lock();
        try
        {
            if (subscription.isClosed())
            {
                return;
            }

            resourceByRegistrationId.remove(subscription.registrationId());
            closeImages(subscription, subscription.internalClose());
            if (!isTerminated())
            {
                awaitResponse(driverProxy.removeSubscription(subscription.registrationId()));
            }
        }
        finally
        {
            clientLock.unlock();
        }
    }

    Counter addCounter(
        final int typeId,
        final DirectBuffer keyBuffer,
        final int keyOffset,
        final int keyLength,
        final DirectBuffer labelBuffer,
        final int labelOffset,
        final int labelLength)
    {
        clientLock.lock();
        try
        {
            ensureActive();
            final long correlationId = driverProxy.addCounter(
                typeId, keyBuffer, keyOffset, keyLength, labelBuffer, labelOffset, labelLength);
            awaitResponse(correlationId);

            final Counter counter = new Counter(this, countersValuesBuffer, responseCounterId, correlationId);
            resourceByRegistrationId.put(correlationId, counter);

            return counter;
        }
        finally
        {
            clientLock.unlock();
        }
    }

    void releaseCounter(final Counter counter)
    {
        clientLock.lock();
        try
        {
            if (null != resourceByRegistrationId.remove(counter.registrationId()) && !isTerminated())
            {
                awaitResponse(driverProxy.removeCounter(counter.registrationId()));
            }
        }
        finally
        {
            clientLock.unlock();
        }
    }

    void requestDriverTermination(final DirectBuffer tokenBuffer, final int tokenOffset, final int tokenLength)
    {
        clientLock.lock();
        try
        {
            ensureActive();
            awaitResponse(driverProxy.terminateDriver(tokenBuffer, tokenOffset, tokenLength));
        }
        finally
        {
            clientLock.unlock();
        }
    }

    /**
     * {@inheritDoc}
     */
    public void onPublicationReady(
        final long correlationId,
        final long registrationId,
        final int sessionId,
        final int streamId,
        final int publicationLimitCounterId,
        final int channelStatusCounterId,
        final boolean exclusive,
        final String logFileName)
    {
        final PendingRegistration pending = pendingRegistrations.get(correlationId);
        if (null != pending)
        {
            onAsyncReady(correlationId, pending, registrationId, sessionId, publicationLimitCounterId,
                channelStatusCounterId, logFileName);
            return;
        }

        responseErrorCode = null;
        responseRegistrationId = registrationId;
        responseSessionId = sessionId;
        responseCounterId = publicationLimitCounterId;
        responseChannelStatusId = channelStatusCounterId;
        responseLogFileName = logFileName;
    }

    /**
     * {@inheritDoc}
     */
    public void onSubscriptionReady(final long correlationId, final int channelStatusCounterId)
    {
        final PendingRegistration pending = pendingRegistrations.get(correlationId);
        if (null != pending)
        {
            onAsyncReady(correlationId, pending, correlationId, 0, NULL_COUNTER_ID, channelStatusCounterId, null);
            return;
        }

        responseErrorCode = null;
        responseChannelStatusId = channelStatusCounterId;
    }

    /**
     * {@inheritDoc}
     */
    public void onOperationSuccess(final long correlationId)
    {
        final PendingRegistration pending = pendingRegistrations.get(correlationId);
        if (null != pending && PendingRegistration.Kind.DESTINATION == pending.kind)
        {
            driverEventsAdapter.removeAsyncCorrelationId(correlationId);
            pendingRegistrations.remove(correlationId);
            return;
        }

        responseErrorCode = null;
    }

    /**
     * {@inheritDoc}
     */
    public void onCounterReady(final long correlationId, final int counterId)
    {
        responseErrorCode = null;
        responseCounterId = counterId;
    }

    /**
     * {@inheritDoc}
     */
    public void onError(final long correlationId, final ControlErrorCode errorCode, final String message)
    {
        final PendingRegistration pending = pendingRegistrations.get(correlationId);
        if (null != pending)
        {
            driverEventsAdapter.removeAsyncCorrelationId(correlationId);
            if (pending.timedOut)
            {
                pendingRegistrations.remove(correlationId);
            }
            else
            {
                pending.failure = new RegistrationException(correlationId, errorCode, message);
            }
            return;
        }

        responseErrorCode = errorCode;
        responseErrorMessage = message;
    }

    /**
     * {@inheritDoc}
     */
    public void onImageAvailable(
        final long imageCorrelationId,
        final long subscriptionRegistrationId,
        final int sessionId,
        final int streamId,
        final int subscriberPositionCounterId,
        final String logFileName,
        final String sourceIdentity)
    {
        if (!(resourceByRegistrationId.get(subscriptionRegistrationId) instanceof Subscription))
        {
            return;
        }

        final Subscription subscription = (Subscription)resourceByRegistrationId.get(subscriptionRegistrationId);
        if (subscription.containsImage(imageCorrelationId))
        {
            return;
        }

        try
        {
            final LogBuffers logBuffers = logBuffers(logFileName);
            final ChannelUri channel = ChannelUri.parse(subscription.channel());
            final boolean isLappableSpy = channel.isSpy() && !"true".equals(channel.get(ChannelUri.SPY_HOLD_PARAM));
            final Image image = new Image(
                subscription,
                imageCorrelationId,
                sessionId,
                new UnsafeBufferPosition(countersValuesBuffer, subscriberPositionCounterId),
                logBuffers,
                errorHandler,
                sourceIdentity,
                isLappableSpy);
            subscription.addImage(image);

            final AvailableImageHandler handler = subscription.availableImageHandler();
            if (null != handler)
            {
                handler.onAvailableImage(image);
            }
        }
        catch (final RuntimeException ex)
        {
            errorHandler.onError(ex);
        }
    }

    /**
     * {@inheritDoc}
     */
    public void onImageUnavailable(
        final long imageCorrelationId, final long subscriptionRegistrationId, final int sessionId, final int streamId)
    {
        if (resourceByRegistrationId.get(subscriptionRegistrationId) instanceof Subscription)
        {
            final Subscription subscription = (Subscription)resourceByRegistrationId.get(subscriptionRegistrationId);
            final Image image = subscription.removeImage(imageCorrelationId);
            if (null != image)
            {
                closeImages(subscription, new Image[]{ image });
            }
        }
    }

    /**
     * {@inheritDoc}
     */
    public void onClientTimeout(final long clientId)
    {
        if (clientId == driverProxy.clientId() && null == terminalCause)
        {
            terminate(new ClientTimeoutException("client " + clientId + " timed out by the driver in " +
                cncFile.file().getParent() + ": it did not heartbeat within the client liveness timeout"));
        }
    }

    private int service()
    {
        int workCount = 0;
        try
        {
            workCount += driverEventsAdapter.receive(EVENTS_PER_DUTY_CYCLE);
        }
        catch (final IllegalStateException ex)
        {
            if (null == terminalCause)
            {
                terminate(new MetaRoceException("client " + driverProxy.clientId() +
                    " lapped by the driver's broadcast buffer: unable to keep up with driver events", ex));
            }
        }

        workCount += checkTimers(nanoClock.nanoTime());

        return workCount;
    }

    private int checkTimers(final long nowNs)
    {
        if (nowNs - timeOfLastKeepaliveNs < keepaliveIntervalNs)
        {
            return 0;
        }

        timeOfLastKeepaliveNs = nowNs;
        if (null == terminalCause)
        {
            final long nowMs = epochClock.time();
            final long heartbeatAgeMs = nowMs - cncFile.driverHeartbeatMs();
            if (heartbeatAgeMs > driverTimeoutMs)
            {
                terminate(new DriverTimeoutException("media driver in " + cncFile.file().getParent() +
                    " has not heartbeated for " + heartbeatAgeMs + " ms (driver timeout " + driverTimeoutMs + " ms)"));
            }
            else
            {
                heartbeat(nowMs);
            }
        }

        checkLingeringResources(nowNs);
        expirePendingRegistrations(nowNs);

        return 1;
    }

    /**
     * The client's liveness ([MC-LIV-1]): a CLIENT_KEEPALIVE every keepalive interval, which is what the driver
     * times clients out on, and the same time written into the client's heartbeat counter for tools. A heartbeat
     * counter that was freed means the driver timed this client out.
     */
    private void heartbeat(final long nowMs)
    {
        driverProxy.sendClientKeepalive();

        final long clientId = driverProxy.clientId();
        if (null == heartbeatCounter)
        {
            final int counterId = ClientHeartbeat.findCounterId(countersReader, clientId);
            if (NULL_COUNTER_ID == counterId)
            {
                return;
            }
            heartbeatCounter = new AtomicCounter(countersValuesBuffer, counterId);
        }

        if (ClientHeartbeat.isActive(countersReader, heartbeatCounter.id(), clientId))
        {
            heartbeatCounter.setRelease(nowMs); // release: tools read it with an acquire load
        }
        else
        {
            terminate(new ClientTimeoutException("heartbeat counter of client " + clientId +
                " was freed by the driver: the client was timed out"));
        }
    }

    private void terminate(final MetaRoceException cause)
    {
        terminalCause = cause;
        forceCloseResources();
        errorHandler.onError(cause);
    }

    private void ensureActive()
    {
        if (isClosed)
        {
            throw new MetaRoceException("client is closed");
        }

        final MetaRoceException cause = terminalCause;
        if (null != cause)
        {
            if (cause instanceof DriverTimeoutException)
            {
                throw new DriverTimeoutException(cause.getMessage());
            }
            if (cause instanceof ClientTimeoutException)
            {
                throw new ClientTimeoutException(cause.getMessage());
            }
            throw new MetaRoceException(cause.getMessage(), cause);
        }
    }

    private void awaitResponse(final long correlationId)
    {
        final long deadlineNs = nanoClock.nanoTime() + driverTimeoutNs;
        responseErrorCode = null;
        driverEventsAdapter.activeCorrelationId(correlationId);
        awaitingIdleStrategy.reset();

        try
        {
            while (true)
            {
                final AgentInvoker driverInvoker = this.driverAgentInvoker;
                if (null != driverInvoker)
                {
                    driverInvoker.invoke();
                }
                service();
                if (driverEventsAdapter.receivedCorrelationId() == correlationId)
                {
                    break;
                }

                ensureActive();
                if (nanoClock.nanoTime() > deadlineNs)
                {
                    throw new DriverTimeoutException("no response from the media driver in " +
                        cncFile.file().getParent() + " within " + driverTimeoutMs + " ms to command " + correlationId);
                }

                if (Thread.currentThread().isInterrupted())
                {
                    throw new MetaRoceException("interrupted while awaiting the driver's response to " + correlationId);
                }

                awaitingIdleStrategy.idle();
            }
        }
        finally
        {
            driverEventsAdapter.activeCorrelationId(DriverEventsAdapter.NO_CORRELATION_ID);
        }

        if (null != responseErrorCode)
        {
            final ControlErrorCode code = responseErrorCode;
            responseErrorCode = null;
            throw new RegistrationException(correlationId, code, responseErrorMessage);
        }
    }

    private LogBuffers logBuffers(final String logFileName)
    {
        LogBuffers logBuffers = logBuffersByFileName.get(logFileName);
        if (null == logBuffers)
        {
            logBuffers = new LogBuffers(logFileName);
            logBuffersByFileName.put(logFileName, logBuffers);
        }

        logBuffers.incRef();
        return logBuffers;
    }

    private void releaseLogBuffers(final LogBuffers logBuffers)
    {
        if (0 == logBuffers.decRef())
        {
            logBuffersByFileName.remove(logBuffers.fileName());
            logBuffers.lingerDeadlineNs(nanoClock.nanoTime() + resourceLingerDurationNs);
            lingeringLogBuffers.add(logBuffers);
        }
    }

    private void checkLingeringResources(final long nowNs)
    {
        for (int i = lingeringLogBuffers.size() - 1; i >= 0; i--)
        {
            final LogBuffers logBuffers = lingeringLogBuffers.get(i);
            if (nowNs - logBuffers.lingerDeadlineNs() >= 0)
            {
                lingeringLogBuffers.remove(i);
                logBuffers.close();
            }
        }
    }

    private void closeImages(final Subscription subscription, final Image[] images)
    {
        final UnavailableImageHandler handler = subscription.unavailableImageHandler();
        for (final Image image : images)
        {
            releaseLogBuffers(image.logBuffers());
            if (null != handler)
            {
                try
                {
                    handler.onUnavailableImage(image);
                }
                catch (final RuntimeException ex)
                {
                    errorHandler.onError(ex);
                }
            }
        }
    }

    private void forceCloseResources()
    {
        pendingRegistrations.forEach((correlationId, pending) ->
            driverEventsAdapter.removeAsyncCorrelationId(correlationId));
        pendingRegistrations.clear();
        final ArrayList<Object> resources = new ArrayList<>(resourceByRegistrationId.values());
        resourceByRegistrationId.clear();
        for (final Object resource : resources)
        {
            if (resource instanceof Publication)
            {
                final Publication publication = (Publication)resource;
                publication.internalClose();
                releaseLogBuffers(publication.logBuffers);
            }
            else if (resource instanceof Subscription)
            {
                final Subscription subscription = (Subscription)resource;
                closeImages(subscription, subscription.internalClose());
            }
            else if (resource instanceof Counter)
            {
                ((Counter)resource).internalClose();
            }
        }
    }
}
