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

import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.stream.PayloadSource;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.TerminationCause;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;

/**
 * One receiver of a multi-destination {@link NetworkPublication}: a {@link SenderStream} of its own on the send
 * endpoint's connection to that receiver (shared with every other stream to it), with its own credit, window and
 * acknowledged position, reading the publication's single log through this {@link PayloadSource}. The
 * {@link PublicationDestinations} of the publication holds it; see there for the flow control and the retention
 * rule it takes part in.
 * <p>
 * <b>Joining.</b> A destination first opens its stream at the publication's producer position of that moment (a
 * frame boundary), so a late joiner receives every message from its join on and none before. Until its receiver
 * accepts the opening it holds nothing: the publisher is not held back by a receiver that is not there. When the
 * receiver accepts, the sender publishes the destination's {@link #retainedPosition()} and then checks the conductor's
 * clean intent; if the conductor may already have zeroed bytes at the opening position (the others ran a full log
 * ahead during the handshake) the stream is closed empty and opened again at the current position. That second
 * opening is retained from the moment it is sent, since its receiver has just shown it is there: the publisher waits
 * for one handshake rather than running ahead of every new opening for as long as it publishes faster than a
 * receiver can accept one. Should the second opening fail, the destination holds nothing again.
 * <p>
 * <b>Retained.</b> From that acceptance until the sender is done with it, the destination is retained: the conductor
 * never zeroes the log at or beyond its acknowledged position, and a stream that fails is opened again from that
 * position, so the destination loses nothing. It leaves when the client removes it (it receives everything published
 * before the removal, then its stream closes with STREAM_CLOSE), when flow control drops it (it stops at once: no new
 * data, no retransmission, and its stream closes or its connection fails), or when the publication has drained.
 * <p>
 * Threading: fields marked sender are confined to the sender agent; the retained position, the connected flag, and
 * the detached flag are written by the sender and read by the conductor; the leave request goes the other way.
 */
final class PublicationDestination implements PayloadSource
{
    /**
     * {@link #retainedPosition()} of a destination whose bytes the conductor need not keep.
     */
    static final long NOT_RETAINED = Long.MAX_VALUE;

    /**
     * Leave request: none.
     */
    static final int STAY = 0;

    /**
     * Leave request: the client removed the destination; it receives what was published before.
     */
    static final int REMOVE = 1;

    /**
     * Leave request: flow control dropped the destination; it stops at once.
     */
    static final int DROP = 2;

    private static final VarHandle RETAINED_POSITION;

    static
    {
        try
        {
            RETAINED_POSITION = MethodHandles.lookup()
                .findVarHandle(PublicationDestination.class, "retainedPosition", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final NetworkPublication publication;
    private final String receiver;
    private final InetSocketAddress[] endpoints;
    private final String connectionForm;
    private final String counterLabel;
    private final SenderSettings settings = new SenderSettings();

    // sender -> conductor
    @SuppressWarnings("unused") // accessed through RETAINED_POSITION
    private volatile long retainedPosition = NOT_RETAINED;
    private volatile boolean isConnected;
    private volatile boolean isDetached;

    // conductor -> sender
    private volatile int leaveRequest = STAY;

    // conductor
    private long lastRetainedPosition = NOT_RETAINED;
    private long timeOfLastProgressNs;
    private boolean isHoldingBackFastest;
    private long heldBackFastestSinceNs;

    // sender
    private int transportDestination = -1;
    private SenderStream stream;
    private long reconnectDeadlineNs;
    private long acknowledgedPosition;
    private long endPosition = Long.MAX_VALUE;
    private boolean isRetained;
    private boolean isRejoining;
    private boolean isOpeningRetained;
    private boolean isLeaving;
    private boolean isCloseRequested;
    private boolean refusesRetransmission;

    PublicationDestination(
        final NetworkPublication publication, final String receiver, final InetSocketAddress[] endpoints)
    {
        this.publication = publication;
        this.receiver = receiver;
        this.endpoints = endpoints;
        this.connectionForm = publication.channel().connectionForm(receiver);
        this.counterLabel = "dst=" + receiver;
    }

    /**
     * The receiver's endpoints as {@code host:port,...}: the key the destination is known by.
     */
    String receiver()
    {
        return receiver;
    }

    InetSocketAddress[] endpoints()
    {
        return endpoints;
    }

    String connectionForm()
    {
        return connectionForm;
    }

    NetworkPublication publication()
    {
        return publication;
    }

    /**
     * The acknowledged position while the conductor must keep the log from it on, {@link #NOT_RETAINED} otherwise.
     */
    long retainedPosition()
    {
        return (long)RETAINED_POSITION.getVolatile(this);
    }

    /**
     * Is the stream open, its receiver having accepted it?
     */
    boolean isConnected()
    {
        return isConnected;
    }

    /**
     * Is the sender done with the destination (it reads the log for it no more)?
     */
    boolean isDetached()
    {
        return isDetached;
    }

    /**
     * Conductor: ask the sender to let the destination go.
     *
     * @param request {@link #REMOVE} or {@link #DROP}.
     */
    void requestLeave(final int request)
    {
        if (STAY == leaveRequest)
        {
            leaveRequest = request;
        }
    }

    /**
     * Is the destination asked to leave, so no longer counted by flow control?
     */
    boolean isLeaving()
    {
        return STAY != leaveRequest;
    }

    /**
     * Conductor: has the retained position stood still, with data beyond it, for longer than a timeout?
     *
     * @param producerPosition the publication's producer position.
     * @param timeoutNs        the flow control timeout, 0 for never.
     * @param nowNs            current time.
     * @return true when the destination stopped acknowledging.
     */
    boolean hasStalled(final long producerPosition, final long timeoutNs, final long nowNs)
    {
        final long retained = retainedPosition();
        if (NOT_RETAINED == retained || retained != lastRetainedPosition || retained >= producerPosition)
        {
            lastRetainedPosition = retained;
            timeOfLastProgressNs = nowNs;
            return false;
        }

        return timeoutNs > 0 && nowNs - timeOfLastProgressNs > timeoutNs;
    }

    /**
     * Conductor timer, with {@code fc=fastest}: the destination holds the fastest back now; has it done so at every
     * tick for longer than a timeout?
     *
     * @param timeoutNs the flow control timeout, 0 for never.
     * @param nowNs     current time.
     * @return true when it held the fastest back for the whole timeout.
     */
    boolean hasHeldBackFastest(final long timeoutNs, final long nowNs)
    {
        if (!isHoldingBackFastest)
        {
            isHoldingBackFastest = true;
            heldBackFastestSinceNs = nowNs;
            return false;
        }

        return timeoutNs > 0 && nowNs - heldBackFastestSinceNs > timeoutNs;
    }

    /**
     * Conductor timer: the destination does not hold the fastest back now.
     */
    void onNotHoldingBackFastest()
    {
        isHoldingBackFastest = false;
    }

    /**
     * Sender: the receiver is registered on the transport; open the stream on the next duty cycle.
     */
    void onAddedToSender(final int transportDestination, final long nowNs)
    {
        this.transportDestination = transportDestination;
        this.reconnectDeadlineNs = nowNs;
    }

    /**
     * Sender: the receiver's send sockets could not be opened; the destination never connects.
     */
    void onSendSocketsFailed()
    {
        detach();
    }

    int transportDestination()
    {
        return transportDestination;
    }

    /**
     * Sender: the stream while the destination has one.
     */
    SenderStream senderStream()
    {
        return stream;
    }

    /**
     * Sender, every duty cycle of a live publication: leave when asked, open the stream when due.
     *
     * @return work done.
     */
    int onSenderDutyCycle(final SendEndpoint endpoint, final long nowNs)
    {
        if (isDetached)
        {
            return 0;
        }
        if (!isLeaving && STAY != leaveRequest)
        {
            leave(nowNs);
            return 1;
        }
        if (isLeaving)
        {
            if (null == stream)
            {
                detach();
                return 1;
            }
            return 0;
        }
        if (null == stream && transportDestination >= 0 && nowNs - reconnectDeadlineNs >= 0)
        {
            openStream(endpoint, nowNs);
            return 1;
        }

        return 0;
    }

    /**
     * Sender, every duty cycle of a released publication: deliver the tail up to the end of stream and close, opening
     * the stream again after a failure until the drain deadline, as a unicast publication does. A destination that
     * never joined has nothing to deliver and is done.
     *
     * @return work done.
     */
    int onDrainDutyCycle(
        final SendEndpoint endpoint, final long dataEndPosition, final long drainDeadlineNs, final long nowNs)
    {
        if (isDetached)
        {
            return 0;
        }
        if (isLeaving || STAY != leaveRequest)
        {
            return onSenderDutyCycle(endpoint, nowNs);
        }

        final boolean acknowledged = acknowledgedPosition >= dataEndPosition;
        final boolean expired = nowNs - drainDeadlineNs >= 0;
        if (null == stream)
        {
            if (!isRetained || acknowledged || expired || transportDestination < 0)
            {
                detach();
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
     * Sender, once the publication is done: the bytes of messages before the end of stream that this destination
     * never acknowledged, which its subscribers will never read.
     *
     * @return the bytes; 0 when it acknowledged all, never joined, or left before the end.
     */
    long unacknowledgedTailBytes(final long dataEndPosition)
    {
        return isRetained && STAY == leaveRequest ? Math.max(0, dataEndPosition - acknowledgedPosition) : 0;
    }

    /**
     * Sender: the receiver accepted the stream. A first acceptance publishes the retained position and then checks
     * that the conductor has not zeroed the log past the opening position meanwhile (a store then a load, both
     * volatile, against the conductor's store of its intent then load of the retained positions: one of the two
     * sees the other).
     */
    void onEstablished(final SenderStream stream)
    {
        if (stream != this.stream)
        {
            return;
        }
        if (!isRetained)
        {
            final long openPosition = acknowledgedPosition;
            RETAINED_POSITION.setVolatile(this, openPosition);
            if (publication.destinations().cleanIntent() > openPosition)
            {
                RETAINED_POSITION.setVolatile(this, NOT_RETAINED);
                isRejoining = true;
                endPosition = openPosition;
                isCloseRequested = true;
                stream.requestClose();
                return;
            }
            isRetained = true;
            isOpeningRetained = false;
        }
        isConnected = true;
    }

    /**
     * Sender: the receiver acknowledged up to a position.
     */
    void onAcknowledged(final SenderStream stream, final long position)
    {
        if (stream == this.stream && position > acknowledgedPosition)
        {
            acknowledgedPosition = position;
            if (isRetained)
            {
                RETAINED_POSITION.setRelease(this, position); // release: the conductor may now zero what is before it
            }
        }
    }

    /**
     * Sender: the stream ended. One closed empty to join again is opened at once, retained from its opening; a
     * leaving destination is done; a released publication's destination whose stream closed normally is done; any
     * other is opened again after {@link NetworkPublication#RECONNECT_DELAY_NS}, from its acknowledged position once
     * retained, at the current position otherwise.
     */
    void onTerminated(final SenderStream stream, final int cause, final boolean isClosing, final long nowNs)
    {
        if (stream != this.stream)
        {
            return;
        }
        this.stream = null;
        isConnected = false;
        isCloseRequested = false;
        if (isRejoining)
        {
            isRejoining = false;
            isOpeningRetained = true;
            endPosition = Long.MAX_VALUE;
            reconnectDeadlineNs = nowNs;
            return;
        }
        if (isOpeningRetained)
        {
            // the retained opening failed: until a receiver accepts again the destination holds nothing
            isOpeningRetained = false;
            RETAINED_POSITION.setRelease(this, NOT_RETAINED);
        }
        if (isLeaving || (isClosing && (TerminationCause.NORMAL == cause ||
            TerminationCause.CLOSE_UNANSWERED == cause || TerminationCause.SHUTDOWN == cause)))
        {
            detach();
        }
        else
        {
            reconnectDeadlineNs = nowNs + NetworkPublication.RECONNECT_DELAY_NS;
        }
    }

    /**
     * {@inheritDoc}
     */
    public long availablePosition()
    {
        return Math.min(publication.producerPosition(), endPosition);
    }

    /**
     * {@inheritDoc}
     */
    public int frames(final long position, final int maxLength, final UnsafeBuffer view)
    {
        return publication.frames(position, maxLength, view, endPosition);
    }

    /**
     * {@inheritDoc}
     */
    public boolean retransmitFrames(final int termId, final int termOffset, final int length, final UnsafeBuffer view)
    {
        return !refusesRetransmission &&
            publication.retransmitFrames(termId, termOffset, length, view, acknowledgedPosition);
    }

    /**
     * A removed destination gets what was published until now and then its stream closes; a dropped one gets
     * nothing more and gives up its bytes now: a retransmission it still needs fails its connection instead of
     * reading a log the conductor may be zeroing.
     */
    private void leave(final long nowNs)
    {
        isLeaving = true;
        final SenderStream stream = this.stream;
        if (DROP == leaveRequest)
        {
            endPosition = null == stream ?
                acknowledgedPosition : Math.max(acknowledgedPosition, stream.senderPosition());
            refusesRetransmission = true;
            RETAINED_POSITION.setRelease(this, NOT_RETAINED); // release: the sender reads no more of the log for it
            isRetained = false;
        }
        else
        {
            endPosition = publication.producerPosition();
        }
        if (null == stream)
        {
            detach();
        }
        else if (!isCloseRequested)
        {
            isCloseRequested = true;
            stream.requestClose(nowNs + publication.channel().lingerTimeoutNs);
        }
    }

    private void openStream(final SendEndpoint endpoint, final long nowNs)
    {
        final long position = isRetained ? acknowledgedPosition : publication.producerPosition();
        acknowledgedPosition = position;
        if (isOpeningRetained)
        {
            // volatile, as in onEstablished: the conductor zeroes nothing from here on, or the acceptance sees it did
            RETAINED_POSITION.setVolatile(this, position);
        }
        publication.fillSettings(settings, position, transportDestination, counterLabel);
        stream = endpoint.openStream(settings, this, publication.registrationId(), receiver);
        reconnectDeadlineNs = nowNs + NetworkPublication.RECONNECT_DELAY_NS;
    }

    private void detach()
    {
        stream = null;
        isConnected = false;
        RETAINED_POSITION.setRelease(this, NOT_RETAINED); // release: the sender reads no more of the log for it
        isDetached = true;
    }
}
