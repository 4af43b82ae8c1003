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

import io.metaroce.client.logbuffer.HeaderWriter;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.client.logbuffer.TermAppender;
import io.metaroce.client.logbuffer.TermUnblocker;
import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.FrameRun;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.stream.PayloadSource;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.TerminationCause;
import io.metaroce.driver.buffer.RawLog;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.Position;

import java.nio.ByteOrder;
import java.util.ArrayList;

import static io.metaroce.client.logbuffer.LogBufferDescriptor.indexByPosition;
import static io.metaroce.client.logbuffer.LogBufferDescriptor.indexByTermCount;
import static org.agrona.BitUtil.SIZE_OF_LONG;

/**
 * A publication on a {@code metaroce:udp} channel: its log (created by the conductor like an IPC publication's),
 * its counters, and the {@link PayloadSource} through which the sender's transport engine reads it.
 * <p>
 * <b>Positions.</b> The sender writes the <em>sender position</em> counter (the receiver's acknowledged position,
 * from {@code ConnectionHandler.onSenderAcknowledged}) with release stores; the conductor reads it with acquire
 * loads every duty cycle, zeroes the log up to one term behind it, and then release-stores the publisher limit
 * {@code sender position + term window} (with spies that hold the publisher back, the lowest of the sender position
 * and theirs, see {@link PublicationSpies}). So publishers never overwrite bytes that are not yet acknowledged, and
 * {@link #retransmitFrames} always finds the bytes first sent. The source hands out only frames whose length it read
 * with an acquire load (pairing with the publisher's release store), below the producer position.
 * <p>
 * <b>Stream.</b> The publication is one {@link SenderStream} of a connection its send endpoint shares with every
 * other publication to the same receiver with the same connection settings (wire version 2). Offers return
 * {@code NOT_CONNECTED} until the receiver accepts the stream's STREAM_OPEN: the sender sets {@link #isConnected}
 * and the conductor mirrors it into the log's metadata. While the receiver refuses it (no subscription, no image
 * yet, a conflict) the engine keeps asking and the publication stays not connected. A stream that fails (its
 * connection failed: peer silent, retransmissions exhausted; or the receiver dropped it) is opened again by the
 * sender after {@link #RECONNECT_DELAY_NS}, from the acknowledged position, on the endpoint's live connection to the
 * receiver or, when that is gone too, on a new one (new connection id and epoch). A draining publication does the
 * same until its data is acknowledged or its drain deadline passes, so a failure during the drain loses nothing
 * that a reopening can still deliver.
 * <p>
 * <b>Lifecycle</b> (conductor): {@code ACTIVE} while a client holds it; {@code DRAINING} after the last release (the
 * limit is frozen at the producer position, the empty end-of-stream frame is appended there and the end of stream
 * set after it, the sender sends that frame and closes the stream with STREAM_CLOSE once all is acknowledged, opening
 * the stream again after a failure, for at most the channel's linger timeout from the release; the connection stays
 * for the endpoint's other streams, or lingers); {@code LINGER} once the sender reports the stream closed or after
 * twice the linger timeout (the sender drops the publication); {@code DONE} a linger timeout later, once the sender
 * no longer reads the log, when the conductor frees it. Bytes the drain could not get acknowledged are reported by
 * the sender as the publication's lost tail ({@link #unacknowledgedTailBytes()}).
 * <p>
 * <b>End of stream.</b> The conductor appends the end-of-stream frame with {@link TermAppender#appendEndOfStream}
 * (the same atomic add on the tail as concurrent publishers, and the frame committed by the release store of its
 * length), then release-stores the end-of-stream position, then sets {@link #isClosing} (volatile). The sender reads
 * {@link #isClosing} before it asks its stream to close, so the producer position it then reads includes the
 * frame: the stream sends it before it counts as drained, and the STREAM_CLOSE's finalPosition includes it. The
 * frame is appended when the last client releases the publication: an exclusive publisher is gone by then (its
 * appender keeps its own tail and does not take part in the atomic add). IPC publications append no end-of-stream
 * frame.
 * <p>
 * <b>Multi-destination.</b> With {@code control-mode=manual} the publication has no stream of its own: each of its
 * {@link PublicationDestinations} is a stream of its own on the connection to its receiver, reading this log, and the
 * conductor moves the limit by their flow control position instead of the sender position, which it then writes
 * itself (see {@link PublicationDestinations} for the positions, joining, leaving and dropping). The drain delivers
 * the tail to every destination still there, and reports what each did not acknowledge.
 * <p>
 * Threading: fields marked conductor are conductor-only, fields marked sender are confined to the sender agent's
 * thread; the volatile fields cross between them.
 */
final class NetworkPublication implements PayloadSource
{
    /**
     * Delay before a failed stream is opened again.
     */
    static final long RECONNECT_DELAY_NS = 100_000_000L;

    enum State
    {
        ACTIVE, DRAINING, LINGER, DONE
    }

    private final long registrationId;
    private final int sessionId;
    private final int streamId;
    private final boolean isExclusive;
    private final UdpChannel channel;
    private final RawLog rawLog;
    private final UnsafeBuffer metaDataBuffer;
    private final UnsafeBuffer[] termBuffers;
    private final UnsafeBuffer[] sendTermBuffers;
    private final int termLength;
    private final int positionBitsToShift;
    private final int initialTermId;
    private final int termWindowLength;
    private final int tripGain;
    private final long lingerTimeoutNs;
    private final Position publisherLimit;
    private final AtomicCounter publisherPosition;
    private final Position senderPosition;
    private final SendEndpoint endpoint;
    private final long unblockTimeoutNs;
    private final AtomicCounter unblockedPublications;
    private final PublicationSpies spies = new PublicationSpies();

    // conductor
    private State state = State.ACTIVE;
    private int refCount;
    private long timeOfLastStateChangeNs;
    private long cleanPosition;
    private long tripLimit;
    private boolean wasConnected;
    private long lastAcknowledgedPosition;
    private long timeOfLastAcknowledgedPositionChangeNs;

    // sender <-> conductor
    private volatile boolean isConnected;
    private volatile boolean isClosing;
    private volatile boolean isSenderDone;

    // conductor -> sender: written before isClosing, read after it
    private long dataEndPosition;

    // conductor, set before the sender hears of the publication: null for a unicast publication
    private PublicationDestinations destinations;

    // sender
    private SenderStream stream;
    private long drainDeadlineNs = Long.MIN_VALUE;
    private final SenderSettings settings = new SenderSettings();
    private final String counterLabel;
    private int destination = -1;
    private long reconnectDeadlineNs;
    private boolean isCloseRequested;

    NetworkPublication(
        final long registrationId,
        final boolean isExclusive,
        final UdpChannel channel,
        final RawLog rawLog,
        final Position publisherLimit,
        final AtomicCounter publisherPosition,
        final Position senderPosition,
        final SendEndpoint endpoint,
        final long unblockTimeoutNs,
        final AtomicCounter unblockedPublications,
        final long nowNs)
    {
        this.registrationId = registrationId;
        this.isExclusive = isExclusive;
        this.channel = channel;
        this.rawLog = rawLog;
        this.metaDataBuffer = rawLog.metaDataBuffer();
        final UnsafeBuffer defaultHeader = LogBufferDescriptor.defaultFrameHeader(metaDataBuffer);
        this.streamId = defaultHeader.getInt(FrameDescriptor.STREAM_ID_OFFSET, ByteOrder.LITTLE_ENDIAN);
        this.sessionId = defaultHeader.getInt(FrameDescriptor.SESSION_ID_OFFSET, ByteOrder.LITTLE_ENDIAN);
        this.termBuffers = rawLog.termBuffers();
        this.sendTermBuffers = rawLog.sliceTerms();
        this.termLength = rawLog.termLength();
        this.positionBitsToShift = LogBufferDescriptor.positionBitsToShift(termLength);
        this.initialTermId = LogBufferDescriptor.initialTermId(metaDataBuffer);
        this.termWindowLength = channel.termWindowLength;
        this.tripGain = termWindowLength / 8;
        this.lingerTimeoutNs = channel.lingerTimeoutNs;
        this.publisherLimit = publisherLimit;
        this.publisherPosition = publisherPosition;
        this.senderPosition = senderPosition;
        this.endpoint = endpoint;
        this.unblockTimeoutNs = unblockTimeoutNs;
        this.unblockedPublications = unblockedPublications;
        this.counterLabel = "dst=" + channel.endpointList();

        final long producerPosition = producerPosition();
        this.cleanPosition = producerPosition;
        this.timeOfLastStateChangeNs = nowNs;
        this.lastAcknowledgedPosition = producerPosition;
        this.timeOfLastAcknowledgedPositionChangeNs = nowNs;
        publisherLimit.setRelease(producerPosition);
        publisherPosition.setRelease(producerPosition);
        senderPosition.setRelease(producerPosition);
        LogBufferDescriptor.isConnected(metaDataBuffer, false);
    }

    long registrationId()
    {
        return registrationId;
    }

    /**
     * Conductor, right after construction: make this a multi-destination publication.
     *
     * @param destinations the publication's destinations.
     */
    void destinations(final PublicationDestinations destinations)
    {
        this.destinations = destinations;
    }

    /**
     * The destinations of a multi-destination publication.
     *
     * @return them, or null for a unicast publication.
     */
    PublicationDestinations destinations()
    {
        return destinations;
    }

    int sessionId()
    {
        return sessionId;
    }

    int streamId()
    {
        return streamId;
    }

    boolean isExclusive()
    {
        return isExclusive;
    }

    UdpChannel channel()
    {
        return channel;
    }

    SendEndpoint endpoint()
    {
        return endpoint;
    }

    String logFileName()
    {
        return rawLog.fileName();
    }

    long logLength()
    {
        return rawLog.logLength();
    }

    int publisherLimitId()
    {
        return publisherLimit.id();
    }

    State state()
    {
        return state;
    }

    /**
     * Conductor: the spies reading this publication's log; holding ones join the limit.
     */
    PublicationSpies spies()
    {
        return spies;
    }

    long producerPosition()
    {
        return LogBufferDescriptor.producerPosition(metaDataBuffer, termLength, positionBitsToShift, initialTermId);
    }

    void incRef()
    {
        refCount++;
    }

    /**
     * Conductor: release one publisher's hold. The last release freezes the limit, appends the empty end-of-stream
     * frame, sets the end of stream after it and asks the sender to close the stream once everything (the
     * end-of-stream frame included) is acknowledged, with STREAM_CLOSE whose finalPosition is the end of stream.
     */
    void decRef(final long nowNs)
    {
        if (0 == --refCount && State.ACTIVE == state)
        {
            dataEndPosition = producerPosition();
            publisherLimit.setRelease(dataEndPosition);
            final long endOfStreamPosition = appendEndOfStream();
            LogBufferDescriptor.endOfStreamPosition(metaDataBuffer, endOfStreamPosition);
            state = State.DRAINING;
            timeOfLastStateChangeNs = nowNs;
            isClosing = true; // release: the sender sees the tail past the end-of-stream frame before it closes
        }
    }

    /**
     * Conductor, every duty cycle: mirror the stream's state into the log and move the limit behind the
     * acknowledged position, cleaning first.
     *
     * @return 1 if the limit moved, otherwise 0.
     */
    int updatePublisherLimit()
    {
        if (State.ACTIVE != state)
        {
            return 0;
        }

        if (null != destinations)
        {
            return updateMultiDestinationLimit();
        }

        final boolean isConnected = this.isConnected;
        if (isConnected != wasConnected)
        {
            wasConnected = isConnected;
            LogBufferDescriptor.isConnected(metaDataBuffer, isConnected);
        }

        final long acknowledgedPosition = spies.consumerPosition(senderPosition.getVolatile());
        final long proposedLimit = acknowledgedPosition + termWindowLength;
        if (isConnected && proposedLimit > tripLimit)
        {
            cleanBufferTo(acknowledgedPosition - termLength);
            publisherLimit.setRelease(proposedLimit); // release: publishes the zeroed memory below the new limit
            tripLimit = proposedLimit + tripGain;
            return 1;
        }

        return 0;
    }

    /**
     * The limit of a multi-destination publication: {@link PublicationDestinations#publisherLimit}, after zeroing the
     * log up to the retained position; a holding spy takes part in both positions as a destination of
     * {@code fc=slowest} would, so the publisher waits for it and the log it has not read is kept.
     */
    private int updateMultiDestinationLimit()
    {
        final PublicationDestinations destinations = this.destinations;
        destinations.update();
        final boolean isConnected = destinations.isConnected();
        if (isConnected != wasConnected)
        {
            wasConnected = isConnected;
            LogBufferDescriptor.isConnected(metaDataBuffer, isConnected);
        }

        final long flowControlPosition = destinations.flowControlPosition();
        if (PublicationDestinations.NO_POSITION == flowControlPosition)
        {
            return 0;
        }
        if (flowControlPosition > senderPosition.get())
        {
            senderPosition.setRelease(flowControlPosition);
        }
        final long retainedPosition = spies.consumerPosition(destinations.retainedPosition());
        final long proposedLimit = PublicationDestinations.publisherLimit(
            spies.consumerPosition(flowControlPosition), retainedPosition, termLength, termWindowLength);
        if (isConnected && proposedLimit > tripLimit)
        {
            cleanBufferTo(destinations.safeCleanPosition(retainedPosition));
            publisherLimit.setRelease(proposedLimit); // release: publishes the zeroed memory below the new limit
            tripLimit = proposedLimit + tripGain;
            return 1;
        }

        return 0;
    }

    /**
     * Conductor timers: sample the producer position, drain and linger.
     *
     * @return true once the publication is done and can be freed.
     */
    boolean onTimeEvent(final long nowNs, final DriverConductor conductor)
    {
        final long producerPosition = producerPosition();
        publisherPosition.setRelease(producerPosition);
        switch (state)
        {
            case ACTIVE:
                if (null != destinations)
                {
                    destinations.onTimeEvent(producerPosition, nowNs);
                }
                checkForBlockedPublisher(producerPosition, nowNs);
                break;

            case DRAINING:
                if (isSenderDone || nowNs - timeOfLastStateChangeNs > 2 * lingerTimeoutNs)
                {
                    conductor.onNetworkPublicationDrained(this);
                    state = State.LINGER;
                    timeOfLastStateChangeNs = nowNs;
                }
                break;

            case LINGER:
                if (nowNs - timeOfLastStateChangeNs > lingerTimeoutNs && isSenderDone)
                {
                    state = State.DONE;
                }
                break;

            default:
                break;
        }

        return State.DONE == state;
    }

    /**
     * Conductor: free the counters, unmap and delete the log.
     */
    void close()
    {
        publisherLimit.close();
        publisherPosition.close();
        senderPosition.close();
        rawLog.free();
    }

    /**
     * Sender: the publication's transport destination was registered; open the stream.
     */
    void onAddedToSender(final int destination, final long nowNs)
    {
        this.destination = destination;
        this.reconnectDeadlineNs = nowNs;
    }

    /**
     * Sender: the publication's send sockets could not be opened; it will never connect.
     */
    void onSendSocketsFailed()
    {
        isSenderDone = true;
    }

    /**
     * Sender, every duty cycle: open the stream when due, and once the publication drains, close it when it is open.
     *
     * @return work done.
     */
    int onSenderDutyCycle(final SendEndpoint endpoint, final long nowNs)
    {
        if (isSenderDone)
        {
            return 0;
        }
        if (null != destinations)
        {
            return onMultiDestinationDutyCycle(endpoint, nowNs);
        }
        if (isClosing)
        {
            return onDrainDutyCycle(endpoint, nowNs);
        }
        if (null == stream && destination >= 0 && nowNs - reconnectDeadlineNs >= 0)
        {
            openStream(endpoint, nowNs);
            return 1;
        }

        return 0;
    }

    /**
     * A released publication sends what its log holds, the end-of-stream frame included, and closes its stream once
     * all of it is acknowledged. A stream that fails meanwhile is opened again, as a live publication's is, until the
     * drain deadline, the channel's linger timeout after the sender first sees the release, or until every message is
     * acknowledged. A stream that is opening is asked to close only once it is open (a close ends an opening at once),
     * once every message is acknowledged, or at the deadline; the engine closes an open one at the deadline with what
     * was acknowledged.
     */
    private int onDrainDutyCycle(final SendEndpoint endpoint, final long nowNs)
    {
        if (Long.MIN_VALUE == drainDeadlineNs)
        {
            drainDeadlineNs = nowNs + lingerTimeoutNs;
        }

        final SenderStream stream = this.stream;
        // Every message acknowledged: an open stream still sends the end-of-stream frame before it closes, but no
        // failed or opening stream is opened again for that frame alone.
        final boolean acknowledged = senderPosition.get() >= dataEndPosition;
        final boolean expired = nowNs - drainDeadlineNs >= 0;
        if (null == stream)
        {
            if (acknowledged || expired || destination < 0)
            {
                isSenderDone = true;
                return 1;
            }
            if (nowNs - reconnectDeadlineNs >= 0)
            {
                openStream(endpoint, nowNs);
                return 1;
            }
            return 0;
        }

        if (!isCloseRequested && (ConnectionState.ESTABLISHED == stream.state() || acknowledged || expired))
        {
            isCloseRequested = true;
            stream.requestClose(drainDeadlineNs);
            return 1;
        }

        return 0;
    }

    /**
     * Every destination's duty cycle; once released, the drain of each, and the publication's sending ends when
     * every destination is done.
     */
    private int onMultiDestinationDutyCycle(final SendEndpoint endpoint, final long nowNs)
    {
        final ArrayList<PublicationDestination> destinations = this.destinations.senderDestinations();
        int workCount = 0;
        if (isClosing)
        {
            if (Long.MIN_VALUE == drainDeadlineNs)
            {
                drainDeadlineNs = nowNs + lingerTimeoutNs;
            }
            boolean done = true;
            for (int i = 0, size = destinations.size(); i < size; i++)
            {
                final PublicationDestination destination = destinations.get(i);
                workCount += destination.onDrainDutyCycle(endpoint, dataEndPosition, drainDeadlineNs, nowNs);
                done &= destination.isDetached();
            }
            if (done)
            {
                isSenderDone = true;
                workCount++;
            }
            return workCount;
        }

        for (int i = 0, size = destinations.size(); i < size; i++)
        {
            workCount += destinations.get(i).onSenderDutyCycle(endpoint, nowNs);
        }

        return workCount;
    }

    /**
     * Sender: is the publication released (its destinations drain)?
     */
    boolean isClosing()
    {
        return isClosing;
    }

    /**
     * Sender: the end of the messages a released publication drains to, read after {@link #isClosing()}.
     */
    long dataEndPosition()
    {
        return dataEndPosition;
    }

    /**
     * Sender: what a stream of the publication carries, starting at a position, towards a transport destination.
     */
    void fillSettings(
        final SenderSettings settings, final long position, final int destination, final String counterLabel)
    {
        settings
            .streamId(streamId)
            .sessionId(sessionId)
            .initialTermId(initialTermId)
            .activeTermId(initialTermId + (int)(position >>> positionBitsToShift))
            .termOffset((int)position & (termLength - 1))
            .termLength(termLength)
            .destination(destination)
            .planeCount(channel.planeCount())
            .pathsPerPlane(channel.entropy)
            .congestionControl(channel.congestionControlName)
            .pathPolicy(channel.pathPolicy)
            .pathCounters(channel.pathCounters)
            .trafficClass(channel.trafficClass)
            .peerKey(channel.authPeerKey)
            .encrypt(channel.authEncrypt)
            .engineSettings(channel.engineSettings)
            .counterLabel(counterLabel);
    }

    private void openStream(final SendEndpoint endpoint, final long nowNs)
    {
        fillSettings(settings, senderPosition.get(), destination, counterLabel);
        this.stream = endpoint.openStream(settings, this, registrationId, channel.endpointList());
        reconnectDeadlineNs = nowNs + RECONNECT_DELAY_NS;
    }

    /**
     * Sender, once it is done with a released publication: the bytes of messages its drain could not get
     * acknowledged (its linger passed, its receiver went away), which no subscriber will ever read. The end-of-stream
     * frame is not a message and is not counted.
     *
     * @return the bytes, 0 when the whole tail was acknowledged or the publication was not released.
     */
    long unacknowledgedTailBytes()
    {
        return isClosing && destination >= 0 ? Math.max(0, dataEndPosition - senderPosition.get()) : 0;
    }

    /**
     * Sender: the publication's stream, while it has one.
     *
     * @return the stream, or null between a failure and its reopening, and once closed.
     */
    SenderStream senderStream()
    {
        return stream;
    }

    /**
     * Sender: the receiver accepted the stream's STREAM_OPEN.
     */
    void onEstablished()
    {
        isConnected = true;
    }

    /**
     * Sender: the receiver acknowledged up to a position.
     */
    void onAcknowledged(final long position)
    {
        if (position > senderPosition.get())
        {
            senderPosition.setRelease(position); // release: the conductor may now reuse space before it
        }
    }

    /**
     * Sender: the stream ended. One that closed (or whose sockets went) while the publication drains ends the
     * publication's sending; any other, failed, is opened again after {@link #RECONNECT_DELAY_NS}, draining or not.
     */
    void onTerminated(final long nowNs, final int cause)
    {
        stream = null;
        isConnected = false;
        isCloseRequested = false;
        if (isClosing && (TerminationCause.NORMAL == cause || TerminationCause.CLOSE_UNANSWERED == cause ||
            TerminationCause.SHUTDOWN == cause))
        {
            isSenderDone = true;
        }
        else
        {
            reconnectDeadlineNs = nowNs + RECONNECT_DELAY_NS;
        }
    }

    /**
     * Sender: is the stream gone for good (closed, or the publication released)?
     */
    boolean isSenderDone()
    {
        return isSenderDone;
    }

    /**
     * {@inheritDoc}
     */
    public long availablePosition()
    {
        return producerPosition();
    }

    /**
     * {@inheritDoc}
     */
    public int frames(final long position, final int maxLength, final UnsafeBuffer view)
    {
        return frames(position, maxLength, view, Long.MAX_VALUE);
    }

    /**
     * The frames of {@link #frames(long, int, UnsafeBuffer)}, up to an end position at most.
     */
    int frames(final long position, final int maxLength, final UnsafeBuffer view, final long endPosition)
    {
        final long limit = Math.min(producerPosition(), endPosition);
        if (position >= limit)
        {
            return 0;
        }

        final UnsafeBuffer term = sendTermBuffers[indexByPosition(position, positionBitsToShift)];
        final int start = (int)position & (termLength - 1);
        final int available = (int)Math.min(limit - position, termLength - start);
        final int scanned = FrameRun.scanCommitted(term, start, available, maxLength);

        if (scanned > 0)
        {
            view.wrap(term, start, scanned);
        }

        return scanned;
    }

    /**
     * {@inheritDoc}
     */
    public boolean retransmitFrames(final int termId, final int termOffset, final int length, final UnsafeBuffer view)
    {
        return retransmitFrames(termId, termOffset, length, view, senderPosition.get());
    }

    /**
     * The bytes of {@link #retransmitFrames(int, int, int, UnsafeBuffer)} for a reader whose bytes are kept from an
     * acknowledged position on.
     */
    boolean retransmitFrames(
        final int termId,
        final int termOffset,
        final int length,
        final UnsafeBuffer view,
        final long acknowledgedPosition)
    {
        final int termCount = termId - initialTermId;
        if (termCount < 0 || termOffset < 0 || length <= 0 || termOffset + length > termLength)
        {
            return false;
        }

        final long position = ((long)termCount << positionBitsToShift) + termOffset;
        if (position < acknowledgedPosition - termLength)
        {
            return false;
        }

        view.wrap(sendTermBuffers[indexByPosition(position, positionBitsToShift)], termOffset, length);
        return true;
    }

    /**
     * A publisher that claimed space and died (or stalls) before committing leaves a frame length of 0 that the
     * sender cannot read past, so the acknowledged position stops below the producer position. After the unblock
     * timeout the claimed region is padded out (a PAD frame in the middle of the term, which receivers skip like any
     * PAD) so that the frames behind it flow again. A stall for any other reason (no receiver, back pressure) finds a
     * committed frame at the acknowledged position and changes nothing.
     */
    private void checkForBlockedPublisher(final long producerPosition, final long nowNs)
    {
        final long acknowledgedPosition = senderPosition.getVolatile();
        if (acknowledgedPosition == lastAcknowledgedPosition && producerPosition > acknowledgedPosition)
        {
            if (nowNs - timeOfLastAcknowledgedPositionChangeNs > unblockTimeoutNs &&
                TermUnblocker.Status.NO_ACTION != TermUnblocker.unblock(
                termBuffers, metaDataBuffer, acknowledgedPosition, termLength))
            {
                unblockedPublications.incrementRelease();
                timeOfLastAcknowledgedPositionChangeNs = nowNs;
            }
        }
        else
        {
            lastAcknowledgedPosition = acknowledgedPosition;
            timeOfLastAcknowledgedPositionChangeNs = nowNs;
        }
    }

    /**
     * Append the empty end-of-stream frame (frame length 32, BEGIN | END | EOS, the stream's session, stream and term
     * fields) with the publishers' own claim: an atomic add on the active term's tail, which pads and rotates the log
     * when the term is full. A publisher still racing its close therefore lands wholly before or wholly after the
     * frame, never across it. The space is clean: the producer position is at most the publisher limit, which is at
     * most a term past the acknowledged position, and the log is zeroed up to one term behind it.
     *
     * @return the position after the frame, or the producer position when the log cannot take it (its last term is
     * full).
     */
    private long appendEndOfStream()
    {
        final HeaderWriter headerWriter = HeaderWriter.newInstance(metaDataBuffer);
        for (int attempt = 0; attempt < LogBufferDescriptor.PARTITION_COUNT; attempt++)
        {
            final int index = indexByTermCount(LogBufferDescriptor.activeTermCount(metaDataBuffer));
            final long result = new TermAppender(termBuffers[index], metaDataBuffer, index)
                .appendEndOfStream(headerWriter);
            if (result > 0)
            {
                return result;
            }
            if (TermAppender.MAX_POSITION_EXCEEDED == result)
            {
                break;
            }
        }

        return producerPosition();
    }

    private void cleanBufferTo(final long position)
    {
        long cleanPosition = this.cleanPosition;
        if (position > cleanPosition)
        {
            spies.beforeClean(metaDataBuffer, position);
        }
        while (position > cleanPosition)
        {
            final UnsafeBuffer dirtyTerm = termBuffers[indexByPosition(cleanPosition, positionBitsToShift)];
            final int termOffset = (int)cleanPosition & (termLength - 1);
            final int length = (int)Math.min(position - cleanPosition, termLength - termOffset);

            dirtyTerm.setMemory(termOffset + SIZE_OF_LONG, length - SIZE_OF_LONG, (byte)0);
            dirtyTerm.putLongRelease(termOffset, 0); // release: the frame length word last, after the body
            cleanPosition += length;
        }

        this.cleanPosition = cleanPosition;
    }
}
