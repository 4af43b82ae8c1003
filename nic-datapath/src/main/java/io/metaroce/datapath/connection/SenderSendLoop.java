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

import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.FrameRun;
import io.metaroce.datapath.congestion.RttEstimator;
import io.metaroce.datapath.counters.SenderCounters;
import io.metaroce.datapath.path.PathBurst;
import io.metaroce.datapath.path.PathPolicy;
import io.metaroce.datapath.path.PathTable;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.stream.PayloadSource;
import io.metaroce.datapath.stream.SenderStateHandler;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.SenderStreamLifecycle;
import io.metaroce.datapath.stream.SenderStreamSet;
import io.metaroce.datapath.stream.TerminationCause;
import io.metaroce.datapath.tracking.SendTracker;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The DATA a sender connection sends in one call of its send path: retransmissions first, then new data of its
 * streams in the order its {@link SenderStreamSet}'s scheduler gives, each within the {@link SendGate} (tracking
 * window, congestion window, receiver credit, pacing) and the stream's window, on a path from the {@link PathPolicy}
 * (new DATA in bursts on one path, through {@link PathBurst}).
 * Every DATA takes the connection's next PSN (a retransmission keeps its own) and is recorded in the
 * {@link SendTracker}; a retransmission goes on another path than its previous transmission where one is healthy. A
 * packet past the retransmission limit makes the connection give up (ERROR(RETRANSMIT_LIMIT), then FAILED), a source
 * that no longer holds the bytes of a retransmission makes it fail; both through {@link SenderStateHandler}.
 * <p>
 * Owned by the engine's thread, like its connection; nothing allocates.
 */
final class SenderSendLoop implements SenderStreamSet.StreamSender
{
    private static final int FRAME_ALIGNMENT = FrameDescriptor.FRAME_ALIGNMENT;

    private final EngineSettings settings;
    private final SendTracker tracker;
    private final SendGate gate;
    private final PathTable table;
    private final PathPolicy policy;
    private final PathBurst pathBurst;
    private final RttEstimator rtt;
    private final LossRecovery recovery;
    private final SenderStreamLifecycle lifecycle;
    private final SenderStreamSet streams;
    private final SenderEncoder encoder;
    private final SenderCounters counters;
    private final SenderStateHandler connection;
    private final NanoClock clock;
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private boolean budgetBound;

    /**
     * The send loop over the parts of one connection.
     */
    SenderSendLoop(
        final EngineSettings settings,
        final SendTracker tracker,
        final SendGate gate,
        final SenderPaths paths,
        final RttEstimator rtt,
        final LossRecovery recovery,
        final SenderStreamLifecycle lifecycle,
        final SenderEncoder encoder,
        final SenderCounters counters,
        final SenderStateHandler connection,
        final NanoClock clock)
    {
        this.settings = settings;
        this.tracker = tracker;
        this.gate = gate;
        this.table = paths.table();
        this.policy = paths.policy();
        this.pathBurst = paths.burst();
        this.rtt = rtt;
        this.recovery = recovery;
        this.lifecycle = lifecycle;
        this.streams = lifecycle.streams();
        this.encoder = encoder;
        this.counters = counters;
        this.connection = connection;
        this.clock = clock;
    }

    /**
     * Send retransmissions, then (while the connection is established) new DATA of the open streams, within the gates,
     * at most {@code burst} packets; after a pass that sent all {@code burst}, the new DATA go in one run on one path
     * ({@link PathBurst#startPass(int)}). The caller checks that the connection is established or closing.
     *
     * @return the DATA sent.
     */
    int send(final int burst, final long nowNs)
    {
        final int run = budgetBound ? burst : 0;
        pathBurst.startPass(run);
        int sent = 0;
        while (sent < burst && tracker.hasRetransmit(nowNs))
        {
            if (!gate.congestionAllows(tracker.length(tracker.nextRetransmitPsn())) || !retransmitOne(nowNs))
            {
                break;
            }
            sent++;
        }
        final int retransmitted = sent;

        if (sent < burst && connection.isEstablished() && !streams.isEmpty())
        {
            streams.discover(nowNs);
            if (!gate.isNewDataBlocked(nowNs))
            {
                sent += streams.send(burst - sent, this, nowNs);
            }
        }

        if (sent > 0)
        {
            counters.inflight.setRelease(tracker.inflightBytes());
            if (run > pathBurst.length())
            {
                recovery.onPassRun(run, table.planeCount(), tracker.nextPsn());
            }
        }
        // New DATA that the send burst ended, not a window, says the sender's duty cycle is the limit: the next pass
        // runs. Retransmissions alone filling the pass say a loss, not that.
        budgetBound = sent >= burst && sent > retransmitted;

        return sent;
    }

    /**
     * Send the stream's next DATA: as many whole frames as the gates and its window allow, with the PSN, the
     * connection's backlog and the flags the frames imply, asking for an ACK at once when the receiver would otherwise
     * wait for its delayed-ACK timer while the sender waits for it.
     */
    public int send(final SenderStream stream, final long nowNs)
    {
        final PayloadSource source = stream.source;
        final long position = stream.senderPosition();
        final long available = source.availablePosition();
        final int limit = gate.newDataLimit(available, position, nowNs);
        if (0 == limit)
        {
            return available <= position ? SenderStreamSet.STREAM_BLOCKED : SenderStreamSet.CONNECTION_BLOCKED;
        }

        // The window bounds the bytes a DATA writes into the image: a PAD frame writes its 32-byte header only.
        final long windowRoom = stream.windowLimit() - position;
        if (windowRoom < FRAME_ALIGNMENT)
        {
            lifecycle.onWindowBlocked(stream, nowNs);
            return SenderStreamSet.STREAM_BLOCKED;
        }
        final int length = source.frames(position, (int)Math.min(limit, windowRoom), view);
        if (0 == length)
        {
            if (windowRoom < limit)
            {
                lifecycle.onWindowBlocked(stream, nowNs);
            }
            return SenderStreamSet.STREAM_BLOCKED;
        }
        if (!gate.congestionAllows(length))
        {
            return SenderStreamSet.CONNECTION_BLOCKED;
        }
        gate.onNewDataAllowed();

        // A burst longer than the window's share of a plane would leave planes idle for the round trip (11.2).
        final int path = pathBurst.selectNew(nowNs, (int)Math.min(pathBurst.runLength(),
            gate.windowBytes() / ((long)table.planeCount() * Math.max(1, gate.maxPayload()))));
        if (PathPolicy.NO_PATH == path)
        {
            return SenderStreamSet.CONNECTION_BLOCKED;
        }

        final long summary = FrameRun.summarise(view, 0, length);
        final int dataFlags = dataFlags(summary);
        final long advance = FrameRun.advance(summary);
        final int pathSeq = table.takePathSeq(path);
        final boolean wasIdle = 0 == tracker.inflightPackets();
        // The backlog this DATA announces, from which the receiver grants credit: every stream's, as last looked at,
        // and while there is any, the bytes in flight (section 7.1).
        final long waiting = streams.takeBacklog(stream, advance);
        final long backlog = announcedBacklog(waiting, tracker.inflightBytes() + length);
        // Each DATA's own send time, not the pass's: sealing a pass of 64 DATA takes tens of microseconds, which a
        // round-trip sample of the pass's last DATA would otherwise count as delay (MR-HDR-11).
        final long sentNs = clock.nanoTime();
        final int psn = tracker.recordNew(position, length, backlog, dataFlags, path, pathSeq, sentNs);
        streams.onSent(stream, psn, position + advance);
        lifecycle.clearWindowProbe(stream);
        gate.onNewDataSent(length, nowNs); // the pacer keeps the pass's time, which isReady is asked with

        // The DATA that ends the data to send carries no ackRequest: the receiver's delayed-ACK timer answers it, which
        // RTO_low and the tail-loss probe allow for, and a request-response stream gets no ACK per message (8.2). One
        // after which a window holds data back asks for an ACK at once: the ACK also brings the stream's new window.
        final boolean ackStarved = gate.isAckStarved(waiting) || isStreamWindowStarved(stream, available);
        final int flags = ackStarved ? dataFlags | TransportFlag.ACK_REQUEST : dataFlags;
        encoder.data(stream, psn, position, flags, path, pathSeq, view, length, backlog, sentNs);
        if (wasIdle)
        {
            recovery.onSendFromIdle(sentNs);
        }
        if (waiting <= 0)
        {
            // Nothing more waits: what comes next comes after a pause (a request-response stream's next message),
            // which the rest of this burst must not carry onto a path the policy may no longer choose.
            pathBurst.end();
        }
        if (available <= stream.senderPosition())
        {
            streams.onDrained(stream);
        }

        return SenderStreamSet.SENT;
    }

    /**
     * The backlog a DATA or CREDIT_REQUEST announces: the bytes waiting and, while any wait, the bytes in flight. A
     * source whose own window follows the acknowledged position (a publication that keeps its data for
     * retransmission) refills by the bytes in flight each round trip; announced without them, the grant for that
     * refill would come a round trip after the refill, and a window-bound stream would move one window per two
     * round trips.
     *
     * @param waiting  bytes the streams hold that their windows let out.
     * @param inflight bytes sent and not yet acknowledged.
     * @return bytes, 0 when nothing waits.
     */
    static long announcedBacklog(final long waiting, final long inflight)
    {
        if (waiting <= 0)
        {
            return 0;
        }
        final long sum = waiting + inflight;
        return sum < waiting ? Long.MAX_VALUE : sum;
    }

    /**
     * After a send, does the stream's window hold back data it has, with fewer packets in flight than the receiver's
     * ACK count (so that no further arrival would make the receiver answer, and the stream would wait for its delayed
     * ACK to learn its new window)?
     */
    private boolean isStreamWindowStarved(final SenderStream stream, final long available)
    {
        final long streamBacklog = available - stream.senderPosition();
        return streamBacklog > 0 && tracker.inflightPackets() < settings.ack().ackEveryPackets() &&
            stream.windowLimit() - stream.senderPosition() < Math.min(streamBacklog, gate.maxPayload());
    }

    private boolean retransmitOne(final long nowNs)
    {
        final SendTracker tracker = this.tracker;
        final int psn = tracker.nextRetransmitPsn();
        if (tracker.transmissions(psn) >= settings.lossRecovery().maxRetransmits() &&
            nowNs - tracker.firstSendTimeNs(psn) >= settings.lossRecovery().giveUpMinNs())
        {
            encoder.retransmitLimit(psn, nowNs);
            connection.fail(TerminationCause.RETRANSMIT_LIMIT);
            return false;
        }

        final SenderStream stream = streams.streamOf(psn);
        final int length = tracker.length(psn);
        final long position = tracker.position(psn);
        if (null == stream || !stream.source.retransmitFrames(
            stream.termId(position), stream.termOffset(position), length, view))
        {
            connection.fail(TerminationCause.SOURCE_UNAVAILABLE);
            return false;
        }

        final int previousPath = tracker.path(psn);
        final int path = policy.selectRetransmit(previousPath, nowNs - 4 * rtt.srttNs(), nowNs);
        if (PathPolicy.NO_PATH == path)
        {
            return false;
        }

        final int reason = tracker.lossReason(psn);
        final int pathSeq = table.takePathSeq(path);
        final long sentNs = clock.nanoTime();
        tracker.recordRetransmit(psn, path, pathSeq, sentNs);
        recovery.onRetransmit(path, pathSeq, reason);
        encoder.data(stream, psn, position, tracker.dataFlags(psn) | TransportFlag.RETX, path, pathSeq, view, length,
            tracker.backlogBytes(psn), sentNs);

        counters.retransmitsTotal.incrementRelease();
        counters.retransmits[reason].incrementRelease();
        counters.pathRetransmits[path].incrementRelease();

        return true;
    }

    /**
     * The DATA flags the frames of a summarised run imply.
     */
    private static int dataFlags(final long summary)
    {
        final int frameFlags = FrameRun.flags(summary);
        int flags = 0;
        if (0 != (frameFlags & FrameDescriptor.BEGIN_FLAG))
        {
            flags |= TransportFlag.FIRST_OF_MESSAGE;
        }
        if (0 != (frameFlags & FrameDescriptor.END_FLAG))
        {
            flags |= TransportFlag.LAST_OF_MESSAGE;
        }
        if (0 != (frameFlags & FrameDescriptor.EOS_FLAG))
        {
            flags |= TransportFlag.FIN;
        }

        return flags;
    }
}
