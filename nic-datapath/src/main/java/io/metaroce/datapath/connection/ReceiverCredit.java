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
import io.metaroce.codec.WireProtocol;
import io.metaroce.datapath.congestion.CreditScheduler;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * A receiver connection's share of its socket group's credit (wire specification section 10): its client of the
 * group's {@link CreditScheduler}, the demand and progress it reports, the grant in force, and whether a CREDIT is due
 * (the grant moved since the last ACK or CREDIT, or the sender asked). Without receiver credit (either end declined
 * it) nothing is reported, no CREDIT is due from a request and the grant is 0.
 * <p>
 * Owned by the engine's thread; the grant in force is published in the connection's {@code rcv-grant-limit} counter.
 */
final class ReceiverCredit
{
    private final SharedCreditScheduler shared;
    private final CreditScheduler scheduler;
    private final AtomicCounter grantLimitCounter;
    private final boolean isEnabled;
    private final int client;
    private final long initialGrantLimit;
    private final long rttHintNs;
    private boolean isDirty;
    private boolean isRequested;
    private int requestPlane;

    /**
     * Join the group's scheduler when credit is in force: the sender gets what it asked for, at most a quantum, and
     * nothing more until streams open (one SETUP_ACK answers a SETUP).
     *
     * @param shared             the group's credit scheduler.
     * @param isEnabled          are receiver credits in force on the connection?
     * @param initialCreditBytes what the sender's SETUP asked for.
     * @param mtu                the connection's negotiated largest datagram: a grant step is at most its DATA payload.
     * @param rttHintNs          the sender's announced base round trip, 0 when it gave none.
     * @param grantLimitCounter  where the grant in force is published.
     */
    ReceiverCredit(
        final SharedCreditScheduler shared,
        final boolean isEnabled,
        final long initialCreditBytes,
        final int mtu,
        final long rttHintNs,
        final AtomicCounter grantLimitCounter)
    {
        this.shared = shared;
        this.scheduler = shared.scheduler();
        this.grantLimitCounter = grantLimitCounter;
        this.isEnabled = isEnabled;
        this.rttHintNs = rttHintNs;
        if (isEnabled)
        {
            client = scheduler.add(
                initialCreditBytes, (mtu - WireProtocol.DATA_HEADER_LENGTH) & ~(FrameDescriptor.FRAME_ALIGNMENT - 1));
            scheduler.onProgress(client, 0, 0, false);
            initialGrantLimit = scheduler.grantLimit(client);
            grantLimitCounter.setRelease(initialGrantLimit);
        }
        else
        {
            client = -1;
            initialGrantLimit = 0;
        }
    }

    /**
     * Are receiver credits in force?
     *
     * @return true when both ends asked for them.
     */
    boolean isEnabled()
    {
        return isEnabled;
    }

    /**
     * The connection's client id in the scheduler.
     *
     * @return the id, -1 without credit.
     */
    int client()
    {
        return client;
    }

    /**
     * The grant of the SETUP_ACK, the same for every retry of the SETUP.
     *
     * @return cumulative payload bytes, 0 without credit.
     */
    long initialGrantLimit()
    {
        return initialGrantLimit;
    }

    /**
     * Grant limit in force.
     *
     * @return cumulative payload bytes the sender may send, 0 without credit.
     */
    long grantLimit()
    {
        return isEnabled ? scheduler.grantLimit(client) : 0;
    }

    /**
     * A DATA was placed: report the sender's backlog it carries, when it is the newest PSN, and the progress.
     *
     * @param isNewest      is it beyond every PSN received before? An earlier one carries an older backlog.
     * @param backlogBytes  the DATA's backlogBytes.
     * @param receivedBytes unique payload bytes received.
     * @param headroom      window headroom of the connection's open streams.
     */
    void onData(final boolean isNewest, final long backlogBytes, final long receivedBytes, final long headroom)
    {
        if (isEnabled)
        {
            if (isNewest)
            {
                scheduler.onDemand(client, backlogBytes);
            }
            scheduler.onProgress(client, receivedBytes, headroom, false);
        }
    }

    /**
     * Report the progress: what the connection received and how much window its streams have left.
     *
     * @param receivedBytes unique payload bytes received.
     * @param headroom      window headroom of the connection's open streams.
     */
    void onProgress(final long receivedBytes, final long headroom)
    {
        if (isEnabled)
        {
            scheduler.onProgress(client, receivedBytes, headroom, false);
        }
    }

    /**
     * A CREDIT_REQUEST: report its backlog when it is newer than every DATA received, run the group's scheduler and
     * answer with a CREDIT on the request's plane.
     *
     * @param isNewer       is the request's PSN beyond every PSN received?
     * @param backlogBytes  the request's backlog.
     * @param receivedBytes unique payload bytes received.
     * @param headroom      window headroom of the connection's open streams.
     * @param plane         the request arrived on.
     * @param nowNs         current time.
     */
    void onRequest(
        final boolean isNewer,
        final long backlogBytes,
        final long receivedBytes,
        final long headroom,
        final int plane,
        final long nowNs)
    {
        if (isEnabled)
        {
            if (isNewer)
            {
                scheduler.onDemand(client, backlogBytes);
            }
            scheduler.onProgress(client, receivedBytes, headroom, false);
            shared.doWork(nowNs);
            isRequested = true;
            requestPlane = plane;
        }
    }

    /**
     * The scheduler extended the grant: a CREDIT is due unless an ACK carries it first.
     *
     * @param grantLimit the new limit.
     */
    void onGrant(final long grantLimit)
    {
        grantLimitCounter.setRelease(grantLimit);
        isDirty = true;
    }

    /**
     * Is a CREDIT due?
     *
     * @return true when the grant moved since the last ACK or CREDIT, or the sender asked.
     */
    boolean isDue()
    {
        return isDirty || isRequested;
    }

    /**
     * The plane a CREDIT prefers: the request's when it answers one; an unsolicited grant follows the newest DATA or
     * PROBE, as an ACK would (section 8.4).
     *
     * @param triggerPlane plane of the newest DATA or PROBE.
     * @return a plane index.
     */
    int plane(final int triggerPlane)
    {
        return isRequested ? requestPlane : triggerPlane;
    }

    /**
     * The pacing hint of a CREDIT: the connection's fair share of the budget, but at least a quantum per quarter of
     * the base round trip when the sender announced one, so that a grant leaves well within a round trip; paced over
     * the window's share alone, a grant would stay outstanding for window / budget and a window of about a
     * bandwidth-delay product could not fill the link.
     *
     * @return the rate in Mb/s, as CREDIT's grantRateMbps.
     */
    long grantRateMbps()
    {
        final long share = scheduler.fairShareBytesPerSecond();
        final long rate = 0 == share || 0 == rttHintNs ? share :
            Math.max(share, 4L * scheduler.quantum() * 1_000_000_000L / rttHintNs);

        return Math.min(0xFFFF_FFFFL, rate / 125_000L);
    }

    /**
     * Senders with backlog that share the budget, as CREDIT's activeSenders.
     *
     * @return the count, at most 65535.
     */
    int activeSenders()
    {
        return Math.min(0xFFFF, scheduler.activeSenders());
    }

    /**
     * An ACK carried the grant.
     */
    void onAckSent()
    {
        isDirty = false;
    }

    /**
     * A CREDIT carried the grant and answered any request.
     */
    void onCreditSent()
    {
        isDirty = false;
        isRequested = false;
    }

    /**
     * The connection ended without a CLOSE: no CREDIT goes any more.
     */
    void cancel()
    {
        isDirty = false;
        isRequested = false;
    }

    /**
     * The connection closed: its sender takes no more of the budget.
     */
    void retire()
    {
        if (isEnabled)
        {
            scheduler.retire(client);
        }
    }

    /**
     * The connection is freed: it leaves the scheduler.
     */
    void remove()
    {
        if (isEnabled)
        {
            scheduler.remove(client);
        }
    }
}
