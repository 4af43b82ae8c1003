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

import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.driver.status.SystemCounterDescriptor;
import io.metaroce.driver.status.SystemCounters;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.status.AtomicCounter;

import java.net.InetSocketAddress;
import java.util.ArrayList;

/**
 * The destinations of a multi-destination {@link NetworkPublication} ({@code control-mode=manual}) and the flow
 * control across them. Each destination is a {@link PublicationDestination}: its own stream, credit, window and
 * acknowledged position, on the send endpoint's connection to its receiver, reading the publication's one log.
 * <p>
 * <b>Positions.</b> Two positions are taken over the destinations on every conductor duty cycle:
 * <ul>
 *     <li>the <em>flow control position</em> {@code F}: with {@code fc=slowest} (the default) the lowest
 *     acknowledged position of the retained destinations that are not leaving (one whose stream failed still
 *     counts: it will be sent what it missed), with {@code fc=fastest} the highest of those connected;</li>
 *     <li>the <em>retained position</em> {@code R}: the lowest acknowledged position of every retained destination,
 *     leaving or not, whose bytes the sender may still read.</li>
 * </ul>
 * The conductor zeroes the log up to {@code R} and sets the publisher limit to
 * {@link #publisherLimit(long, long, int, int) min(F + term window, R + 2 x term length)}: writing a term reuses the
 * partition of the term three before it, which then lies wholly below {@code R}, so no byte a destination may still
 * send or retransmit is ever zeroed or overwritten. Holding spies join both positions
 * ({@link PublicationSpies#consumerPosition}), as destinations of {@code fc=slowest} would. With {@code fc=slowest}
 * that bound never binds (F is at least R); with {@code fc=fastest} a destination so far behind the fastest that it
 * binds ({@link #isOverrun}) holds the fastest back, and is dropped when it has done so for the whole
 * {@code fc-timeout}: a live destination is often that far behind for a while (its acknowledgements lag by up to its
 * window, a term by default), so dropping it at once would drop receivers that keep up.
 * <p>
 * <b>Dropping.</b> With {@code fc-timeout} (default 5 s with {@code fc=fastest}, never with {@code fc=slowest}) a
 * retained destination whose acknowledged position stands still below the producer position for longer than the
 * timeout is dropped: it stops at once and the others go on. Each drop is counted
 * ({@code SystemCounterDescriptor.DESTINATIONS_DROPPED}) and logged in the distinct error log naming the
 * publication, the receiver and the reason.
 * <p>
 * <b>Connected.</b> The publication is connected while at least one destination's stream is open, as with Aeron's
 * multi-destination cast; with {@code fc=slowest} a destination that was connected and lost its connection still
 * holds the publisher back by its window until it comes back or is dropped.
 * <p>
 * Threading: the conductor list is conductor-only, the sender list sender-only; they hold the same destinations. The
 * clean intent is written by the conductor and read by the sender (see {@link PublicationDestination#onEstablished}).
 */
final class PublicationDestinations
{
    /**
     * {@link #flowControlPosition()} when no destination counts.
     */
    static final long NO_POSITION = Long.MIN_VALUE;

    private final NetworkPublication publication;
    private final int planeCount;
    private final boolean fastest;
    private final long timeoutNs;
    private final int termLength;
    private final int termWindowLength;
    private final AtomicCounter destinationsDropped;
    private final ErrorHandler errorHandler;
    private final ArrayList<PublicationDestination> conductorDestinations = new ArrayList<>();
    private final ArrayList<PublicationDestination> senderDestinations = new ArrayList<>();

    // conductor -> sender
    private volatile long cleanIntent = Long.MIN_VALUE;

    // conductor, from the last update
    private long flowControlPosition = NO_POSITION;
    private long retainedPosition = PublicationDestination.NOT_RETAINED;
    private long highestPosition = NO_POSITION;
    private boolean isConnected;

    PublicationDestinations(
        final NetworkPublication publication,
        final UdpChannel channel,
        final SystemCounters systemCounters,
        final ErrorHandler errorHandler)
    {
        this.publication = publication;
        this.planeCount = channel.planeCount();
        this.fastest = channel.fastestFlowControl;
        this.timeoutNs = channel.flowControlTimeoutNs;
        this.termLength = channel.termLength;
        this.termWindowLength = channel.termWindowLength;
        this.destinationsDropped = systemCounters.get(SystemCounterDescriptor.DESTINATIONS_DROPPED);
        this.errorHandler = errorHandler;
        for (int i = 0; i < channel.destinations.length; i++)
        {
            final PublicationDestination destination = new PublicationDestination(
                publication, ChannelAddresses.join(channel.destinations[i]), channel.destinations[i]);
            conductorDestinations.add(destination);
            senderDestinations.add(destination);
        }
    }

    /**
     * The publisher limit of a flow control position and a retained position: the flow control position plus the
     * window, but never more than two terms past the retained position (see the class comment).
     *
     * @param flowControlPosition {@code F}.
     * @param retainedPosition    {@code R}, at most {@code F} unless dropping is due.
     * @param termLength          of the log.
     * @param termWindowLength    of the publication.
     * @return the limit.
     */
    static long publisherLimit(
        final long flowControlPosition, final long retainedPosition, final int termLength, final int termWindowLength)
    {
        return Math.min(flowControlPosition + termWindowLength, retainedPosition + 2L * termLength);
    }

    /**
     * Would a destination at a retained position hold the publisher back below the window of the fastest?
     *
     * @param retainedPosition    the destination's.
     * @param flowControlPosition the fastest's.
     * @param termLength          of the log.
     * @param termWindowLength    of the publication.
     * @return true when the destination holds the fastest back (and is dropped when it does so for the timeout).
     */
    static boolean isOverrun(
        final long retainedPosition, final long flowControlPosition, final int termLength, final int termWindowLength)
    {
        return retainedPosition + 2L * termLength < flowControlPosition + termWindowLength;
    }

    /**
     * Every destination has the publication's planes.
     */
    int planeCount()
    {
        return planeCount;
    }

    /**
     * Conductor: add a destination; the caller hands it to the sender.
     *
     * @param endpoints       the receiver's, one per plane.
     * @param maxDestinations the driver's limit.
     * @return the destination.
     * @throws ControlProtocolException CLASH when the receiver is a destination already (or still leaving),
     *                                  LIMIT_EXCEEDED when the publication has the most destinations allowed.
     */
    PublicationDestination add(final InetSocketAddress[] endpoints, final int maxDestinations)
    {
        final String receiver = ChannelAddresses.join(endpoints);
        if (null != find(receiver))
        {
            throw new ControlProtocolException(ControlErrorCode.CLASH, "publication " +
                publication.registrationId() + " already has destination " + receiver +
                " (or it is still leaving)");
        }
        int count = 0;
        for (int i = 0, size = conductorDestinations.size(); i < size; i++)
        {
            count += conductorDestinations.get(i).isDetached() ? 0 : 1;
        }
        if (count >= maxDestinations)
        {
            throw new ControlProtocolException(ControlErrorCode.LIMIT_EXCEEDED, "publication " +
                publication.registrationId() + " has " + count + " destinations: " +
                Configuration.PUBLICATION_DESTINATIONS_MAX_PROP_NAME + " is " + maxDestinations);
        }

        final PublicationDestination destination = new PublicationDestination(publication, receiver, endpoints);
        conductorDestinations.add(destination);

        return destination;
    }

    /**
     * Conductor: ask the sender to let a destination go once it received what was published so far.
     *
     * @param endpoints the receiver's.
     * @throws ControlProtocolException INVALID_CHANNEL when the receiver is not a destination of the publication.
     */
    void remove(final InetSocketAddress[] endpoints)
    {
        final String receiver = ChannelAddresses.join(endpoints);
        final PublicationDestination destination = find(receiver);
        if (null == destination || destination.isLeaving())
        {
            throw UdpChannel.invalid("publication " + publication.registrationId() + " has no destination " +
                receiver);
        }
        destination.requestLeave(PublicationDestination.REMOVE);
    }

    private PublicationDestination find(final String receiver)
    {
        for (int i = 0, size = conductorDestinations.size(); i < size; i++)
        {
            final PublicationDestination destination = conductorDestinations.get(i);
            if (!destination.isDetached() && destination.receiver().equals(receiver))
            {
                return destination;
            }
        }

        return null;
    }

    /**
     * Conductor: the destinations it knows, leaving or not, until the sender is done with them.
     */
    ArrayList<PublicationDestination> conductorDestinations()
    {
        return conductorDestinations;
    }

    /**
     * Sender: the destinations it sends to.
     */
    ArrayList<PublicationDestination> senderDestinations()
    {
        return senderDestinations;
    }

    /**
     * Sender: the position below which the conductor may be zeroing the log.
     */
    long cleanIntent()
    {
        return cleanIntent;
    }

    /**
     * Conductor, every duty cycle: take the flow control and retained positions over the destinations, and forget
     * those the sender is done with.
     */
    void update()
    {
        long flow = fastest ? Long.MIN_VALUE : Long.MAX_VALUE;
        long retained = PublicationDestination.NOT_RETAINED;
        long highest = NO_POSITION;
        boolean counted = false;
        boolean connected = false;
        final ArrayList<PublicationDestination> destinations = conductorDestinations;
        for (int i = destinations.size() - 1; i >= 0; i--)
        {
            final PublicationDestination destination = destinations.get(i);
            if (destination.isDetached())
            {
                destinations.remove(i);
                continue;
            }
            final long position = destination.retainedPosition();
            final boolean isConnected = destination.isConnected();
            connected |= isConnected;
            if (PublicationDestination.NOT_RETAINED == position)
            {
                continue;
            }
            retained = Math.min(retained, position);
            highest = Math.max(highest, position);
            if (!destination.isLeaving() && (!fastest || isConnected))
            {
                flow = fastest ? Math.max(flow, position) : Math.min(flow, position);
                counted = true;
            }
        }

        flowControlPosition = counted ? flow : NO_POSITION;
        retainedPosition = retained;
        highestPosition = highest;
        isConnected = connected;
    }

    long flowControlPosition()
    {
        return flowControlPosition;
    }

    long retainedPosition()
    {
        return retainedPosition;
    }

    /**
     * The highest acknowledged position of a retained destination, where a publisher that died in a claim blocks
     * them all.
     */
    long highestPosition()
    {
        return highestPosition;
    }

    boolean isConnected()
    {
        return isConnected;
    }

    /**
     * Conductor: before zeroing the log below a position, publish the intent and take the retained position again,
     * so that a destination the sender admitted meanwhile is either seen here or sees the intent.
     *
     * @param position where the conductor means to zero to.
     * @return the position it may zero to.
     */
    long safeCleanPosition(final long position)
    {
        if (position > cleanIntent)
        {
            cleanIntent = position;
        }
        long safe = position;
        final ArrayList<PublicationDestination> destinations = conductorDestinations;
        for (int i = 0, size = destinations.size(); i < size; i++)
        {
            safe = Math.min(safe, destinations.get(i).retainedPosition());
        }

        return safe;
    }

    /**
     * Conductor timer: drop the destinations that stopped acknowledging for the timeout, and with {@code fc=fastest}
     * those that held the fastest back for the timeout.
     *
     * @param producerPosition of the publication.
     * @param nowNs            current time.
     */
    void onTimeEvent(final long producerPosition, final long nowNs)
    {
        final ArrayList<PublicationDestination> destinations = conductorDestinations;
        for (int i = 0, size = destinations.size(); i < size; i++)
        {
            final PublicationDestination destination = destinations.get(i);
            if (destination.isLeaving() || destination.isDetached())
            {
                continue;
            }
            if (destination.hasStalled(producerPosition, timeoutNs, nowNs))
            {
                drop(destination, "acknowledged nothing for " + timeoutNs / 1_000_000 + " ms (" +
                    UdpChannel.FLOW_CONTROL_TIMEOUT_PARAM + ")");
            }
            else if (fastest && NO_POSITION != flowControlPosition &&
                PublicationDestination.NOT_RETAINED != destination.retainedPosition() &&
                isOverrun(destination.retainedPosition(), flowControlPosition, termLength, termWindowLength))
            {
                if (destination.hasHeldBackFastest(timeoutNs, nowNs))
                {
                    drop(destination, "held the fastest destination back for " + timeoutNs / 1_000_000 +
                        " ms (" + UdpChannel.FLOW_CONTROL_TIMEOUT_PARAM + ", fc=fastest), too far behind it for " +
                        "the log to keep its data");
                }
            }
            else
            {
                destination.onNotHoldingBackFastest();
            }
        }
    }

    private void drop(final PublicationDestination destination, final String reason)
    {
        destination.requestLeave(PublicationDestination.DROP);
        errorHandler.onError(new IllegalStateException("publication " + publication.registrationId() + " stream " +
            publication.streamId() + " session " + publication.sessionId() + ": destination " +
            destination.receiver() + " dropped, it " + reason + "; it receives nothing more"));
        destinationsDropped.incrementRelease();
    }
}
