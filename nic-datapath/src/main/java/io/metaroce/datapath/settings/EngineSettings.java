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
package io.metaroce.datapath.settings;

import io.metaroce.codec.WireProtocol;
import org.agrona.BitUtil;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import static io.metaroce.datapath.settings.Configuration.*;

/**
 * The transport engine's protocol settings, immutable and grouped as the engine's parts use them: the engine's own
 * ({@link #mtu()}, polling, sending, answers to strangers), then {@link #paths()}, {@link #ack()},
 * {@link #lossRecovery()}, {@link #congestion()}, {@link #credit()} and {@link #timers()}. Every value has a
 * {@code metaroce.datapath.*} property and one default, both in {@link Configuration}; the specification's section 20
 * and {@code docs/driver.md} list them. {@link #builder()} starts from the system properties, and {@link #toBuilder()}
 * makes a modified copy, as a channel's parameters do for its connections. A connection keeps the instance it was
 * made with, so settings never change under a live connection.
 */
public final class EngineSettings
{
    private final int mtu;
    private final int pollLimit;
    private final int sendBurst;
    private final int rejectReplyRate;
    private final int rejectReplyBurst;
    private final PathSettings paths;
    private final AckSettings ack;
    private final LossRecoverySettings lossRecovery;
    private final CongestionSettings congestion;
    private final CreditSettings credit;
    private final TimerSettings timers;
    private final PeerLimitSettings limits;

    private EngineSettings(
        final Builder builder,
        final PathSettings paths,
        final AckSettings ack,
        final LossRecoverySettings lossRecovery,
        final CongestionSettings congestion,
        final CreditSettings credit,
        final TimerSettings timers,
        final PeerLimitSettings limits)
    {
        check(builder.mtu >= Configuration.MIN_MTU && builder.mtu <= WireProtocol.MAX_DATAGRAM_LENGTH &&
            builder.mtu > WireProtocol.DATA_HEADER_LENGTH + 32, MTU_PROP_NAME, builder.mtu);
        check(builder.pollLimit >= 1, POLL_LIMIT_PROP_NAME, builder.pollLimit);
        check(builder.sendBurst >= 1, SEND_BURST_PROP_NAME, builder.sendBurst);
        check(builder.rejectReplyRate >= 1, REJECT_REPLY_RATE_PROP_NAME, builder.rejectReplyRate);
        check(builder.rejectReplyBurst >= 1, REJECT_REPLY_BURST_PROP_NAME, builder.rejectReplyBurst);
        this.mtu = builder.mtu;
        this.pollLimit = builder.pollLimit;
        this.sendBurst = builder.sendBurst;
        this.rejectReplyRate = builder.rejectReplyRate;
        this.rejectReplyBurst = builder.rejectReplyBurst;
        this.paths = paths;
        this.ack = ack;
        this.lossRecovery = lossRecovery;
        this.congestion = congestion;
        this.credit = credit;
        this.timers = timers;
        this.limits = limits;
    }

    /**
     * A builder starting from the {@code metaroce.datapath.*} system properties, each unset one at its default.
     *
     * @return a new builder.
     * @throws IllegalArgumentException naming a property whose value does not parse.
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * The settings of the system properties and defaults.
     *
     * @return a new instance.
     * @throws IllegalArgumentException naming the property of the first value that does not parse or is out of range.
     */
    public static EngineSettings fromSystemProperties()
    {
        return new Builder().build();
    }

    /**
     * A builder starting from these settings, to make a modified copy.
     *
     * @return a new builder.
     */
    public Builder toBuilder()
    {
        return new Builder(this);
    }

    /**
     * Largest UDP payload this engine sends or accepts on a connection (negotiated down to the peer's).
     *
     * @return the value; see {@link Configuration#MTU_PROP_NAME}.
     */
    public int mtu()
    {
        return mtu;
    }

    /**
     * Datagrams received per poll.
     *
     * @return the value; see {@link Configuration#POLL_LIMIT_PROP_NAME}.
     */
    public int pollLimit()
    {
        return pollLimit;
    }

    /**
     * DATA packets one connection may send per send call.
     *
     * @return the value; see {@link Configuration#SEND_BURST_PROP_NAME}.
     */
    public int sendBurst()
    {
        return sendBurst;
    }

    /**
     * Most answers per second to packets of unknown connections and to refused SETUPs, over every peer.
     *
     * @return the value; see {@link Configuration#REJECT_REPLY_RATE_PROP_NAME}.
     */
    public int rejectReplyRate()
    {
        return rejectReplyRate;
    }

    /**
     * Answers to packets of unknown connections that may go back to back.
     *
     * @return the value; see {@link Configuration#REJECT_REPLY_BURST_PROP_NAME}.
     */
    public int rejectReplyBurst()
    {
        return rejectReplyBurst;
    }

    /**
     * Path management and health.
     *
     * @return the group.
     */
    public PathSettings paths()
    {
        return paths;
    }

    /**
     * Acknowledgement and tracking.
     *
     * @return the group.
     */
    public AckSettings ack()
    {
        return ack;
    }

    /**
     * Loss recovery.
     *
     * @return the group.
     */
    public LossRecoverySettings lossRecovery()
    {
        return lossRecovery;
    }

    /**
     * Congestion control.
     *
     * @return the group.
     */
    public CongestionSettings congestion()
    {
        return congestion;
    }

    /**
     * Receiver-driven credit.
     *
     * @return the group.
     */
    public CreditSettings credit()
    {
        return credit;
    }

    /**
     * Connection timers.
     *
     * @return the group.
     */
    public TimerSettings timers()
    {
        return timers;
    }

    /**
     * Bounds on what remote peers may make a receiver hold. Engine-wide: a {@code TransportEngine} applies those of
     * its own settings ({@code TransportEngine.Context#settings()}) to every socket group, whatever the group's or a
     * channel's settings say.
     *
     * @return the group.
     */
    public PeerLimitSettings limits()
    {
        return limits;
    }

    /**
     * Every value with its property name, in the order of {@link Configuration}: for printing the configuration and
     * for the tests that pin the documentation to the code.
     *
     * @param consumer called once per property with its name and its value (a boxed number, boolean or string).
     */
    public void forEachValue(final BiConsumer<String, Object> consumer)
    {
        consumer.accept(MTU_PROP_NAME, mtu);
        consumer.accept(POLL_LIMIT_PROP_NAME, pollLimit);
        consumer.accept(SEND_BURST_PROP_NAME, sendBurst);
        consumer.accept(REJECT_REPLY_RATE_PROP_NAME, rejectReplyRate);
        consumer.accept(REJECT_REPLY_BURST_PROP_NAME, rejectReplyBurst);
        consumer.accept(PATHS_PER_PLANE_PROP_NAME, paths.pathsPerPlane());
        consumer.accept(REPS_RING_CAPACITY_PROP_NAME, paths.repsRingCapacity());
        consumer.accept(PLANE_WEIGHT_FLOOR_PROP_NAME, paths.planeWeightFloor());
        consumer.accept(PATH_BURST_PROP_NAME, paths.pathBurst());
        consumer.accept(PATH_EVICTION_PROP_NAME, paths.pathEviction());
        consumer.accept(PATH_COUNTERS_PROP_NAME, paths.pathCounters());
        consumer.accept(MAX_EVICT_FRACTION_PROP_NAME, paths.maxEvictFraction());
        consumer.accept(LOSS_WINDOW_SRTTS_PROP_NAME, paths.lossWindowSrtts());
        consumer.accept(PROBES_BEFORE_EVICTION_PROP_NAME, paths.probesBeforeEviction());
        consumer.accept(PROBE_INTERVAL_MIN_NS_PROP_NAME, paths.probeIntervalMinNs());
        consumer.accept(REPROBE_MIN_NS_PROP_NAME, paths.reprobeMinNs());
        consumer.accept(REPROBE_MAX_NS_PROP_NAME, paths.reprobeMaxNs());
        consumer.accept(READMISSION_PROBE_ACKS_PROP_NAME, paths.readmissionProbeAcks());
        consumer.accept(RTT_OUTLIER_FACTOR_PROP_NAME, paths.rttOutlierFactor());
        consumer.accept(PLANE_DOWN_FRACTION_PROP_NAME, paths.planeDownFraction());
        consumer.accept(MPR_PSNS_PROP_NAME, ack.mprPsns());
        consumer.accept(MAX_MPR_PSNS_PROP_NAME, ack.maxMprPsns());
        consumer.accept(SACK_WORDS_PROP_NAME, ack.sackWords());
        consumer.accept(ACK_EVERY_PACKETS_PROP_NAME, ack.ackEveryPackets());
        consumer.accept(ACK_EVERY_BYTES_PROP_NAME, ack.ackEveryBytes());
        consumer.accept(DELAYED_ACK_NS_PROP_NAME, ack.delayedAckNs());
        consumer.accept(NACK_INTERVAL_NS_PROP_NAME, ack.nackIntervalNs());
        consumer.accept(LOSS_DETECTION_PROP_NAME, lossRecovery.lossDetection());
        consumer.accept(DUP_THRESH_MIN_PROP_NAME, lossRecovery.dupThreshMin());
        consumer.accept(PATH_SEQ_TOLERANCE_PROP_NAME, lossRecovery.pathSeqTolerance());
        consumer.accept(REORDER_WINDOW_MIN_NS_PROP_NAME, lossRecovery.reorderWindowMinNs());
        consumer.accept(TAIL_LOSS_PROBE_MIN_NS_PROP_NAME, lossRecovery.tailLossProbeMinNs());
        consumer.accept(RTO_LOW_MIN_NS_PROP_NAME, lossRecovery.rtoLowMinNs());
        consumer.accept(RTO_HIGH_MIN_NS_PROP_NAME, lossRecovery.rtoHighMinNs());
        consumer.accept(RTO_MAX_NS_PROP_NAME, lossRecovery.rtoMaxNs());
        consumer.accept(MAX_RETRANSMITS_PROP_NAME, lossRecovery.maxRetransmits());
        consumer.accept(GIVE_UP_MIN_NS_PROP_NAME, lossRecovery.giveUpMinNs());
        consumer.accept(SENDER_WINDOW_PROP_NAME, congestion.senderWindow());
        consumer.accept(BASE_RTT_HINT_NS_PROP_NAME, congestion.baseRttHintNs());
        consumer.accept(INITIAL_RTT_NS_PROP_NAME, congestion.initialRttNs());
        consumer.accept(BASE_RTT_WINDOW_NS_PROP_NAME, congestion.baseRttWindowNs());
        consumer.accept(CC_ADDITIVE_INCREASE_PROP_NAME, congestion.ccAdditiveIncrease());
        consumer.accept(CC_BETA_PROP_NAME, congestion.ccBeta());
        consumer.accept(CC_MAX_MDF_PROP_NAME, congestion.ccMaxMdf());
        consumer.accept(CC_SLACK_NS_PROP_NAME, congestion.ccSlackNs());
        consumer.accept(PACING_GAIN_PROP_NAME, congestion.pacingGain());
        consumer.accept(RECEIVER_CREDIT_PROP_NAME, credit.receiverCredit());
        consumer.accept(INITIAL_CREDIT_BYTES_PROP_NAME, credit.initialCreditBytes());
        consumer.accept(CREDIT_QUANTUM_PROP_NAME, credit.creditQuantum());
        consumer.accept(CREDIT_OVERCOMMIT_PROP_NAME, credit.creditOvercommit());
        consumer.accept(CREDIT_RATE_MBPS_PROP_NAME, credit.creditRateMbps());
        consumer.accept(CREDIT_WINDOW_BYTES_PROP_NAME, credit.creditWindowBytes());
        consumer.accept(CREDIT_HIGH_WATERMARK_PROP_NAME, credit.creditHighWatermark());
        consumer.accept(CREDIT_REQUEST_MIN_NS_PROP_NAME, credit.creditRequestMinNs());
        consumer.accept(LINK_RATE_MBPS_PROP_NAME, credit.linkRateMbps());
        consumer.accept(RETRY_AFTER_NS_PROP_NAME, credit.retryAfterNs());
        consumer.accept(SETUP_RETRY_MIN_NS_PROP_NAME, timers.setupRetryMinNs());
        consumer.accept(SETUP_RETRY_MAX_NS_PROP_NAME, timers.setupRetryMaxNs());
        consumer.accept(KEEPALIVE_INTERVAL_NS_PROP_NAME, timers.keepaliveIntervalNs());
        consumer.accept(STATUS_INTERVAL_NS_PROP_NAME, timers.statusIntervalNs());
        consumer.accept(CONNECTION_TIMEOUT_NS_PROP_NAME, timers.connectionTimeoutNs());
        consumer.accept(LINGER_TIMEOUT_NS_PROP_NAME, timers.lingerTimeoutNs());
        consumer.accept(CLOSE_RETRIES_PROP_NAME, timers.closeRetries());
        consumer.accept(CLOSE_RETRY_MIN_NS_PROP_NAME, timers.closeRetryMinNs());
        consumer.accept(MAX_CONNECTIONS_PER_SOURCE_PROP_NAME, limits.maxConnectionsPerSource());
        consumer.accept(MAX_UNPROVED_CONNECTIONS_PROP_NAME, limits.maxUnprovedConnections());
        consumer.accept(MAX_STREAMS_PER_CONNECTION_PROP_NAME, limits.maxStreamsPerConnection());
        consumer.accept(MAX_STREAMS_PER_SOURCE_PROP_NAME, limits.maxStreamsPerSource());
        consumer.accept(MAX_TERM_LENGTH_PROP_NAME, limits.maxTermLength());
        consumer.accept(MAX_IMAGE_BYTES_PER_CONNECTION_PROP_NAME, limits.maxImageBytesPerConnection());
        consumer.accept(MAX_IMAGE_BYTES_PER_SOURCE_PROP_NAME, limits.maxImageBytesPerSource());
        consumer.accept(COUNTERS_RESERVE_PROP_NAME, limits.countersReserve());
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public String toString()
    {
        return "EngineSettings{mtu=" + mtu + ", pollLimit=" + pollLimit + ", sendBurst=" + sendBurst +
            ", rejectReplyRate=" + rejectReplyRate + ", rejectReplyBurst=" + rejectReplyBurst + ", " + paths + ", " +
            ack + ", " + lossRecovery + ", " + congestion + ", " + credit + ", " + timers + ", " + limits + "}";
    }

    /**
     * Settings are equal when every value is: connections with equal settings are interchangeable.
     *
     * @param other the object to compare.
     * @return true when other is an {@link EngineSettings} with the same values.
     */
    @Override
    public boolean equals(final Object other)
    {
        if (this == other)
        {
            return true;
        }
        if (!(other instanceof EngineSettings))
        {
            return false;
        }

        final EngineSettings that = (EngineSettings)other;
        return mtu == that.mtu && pollLimit == that.pollLimit && sendBurst == that.sendBurst &&
            rejectReplyRate == that.rejectReplyRate && rejectReplyBurst == that.rejectReplyBurst &&
            paths.equals(that.paths) && ack.equals(that.ack) && lossRecovery.equals(that.lossRecovery) &&
            congestion.equals(that.congestion) && credit.equals(that.credit) && timers.equals(that.timers) &&
            limits.equals(that.limits);
    }

    /**
     * {@inheritDoc}
     */
    @Override
    public int hashCode()
    {
        return Objects.hash(
            mtu, pollLimit, sendBurst, rejectReplyRate, rejectReplyBurst, paths, ack, lossRecovery, congestion, credit,
            timers, limits);
    }

    private static void check(final boolean valid, final String property, final Object value)
    {
        if (!valid)
        {
            throw new IllegalArgumentException(property + " is invalid: " + Configuration.asGiven(property, value));
        }
    }

    private static void checkAtLeast(
        final String property, final long value, final String lowerProperty, final long lowerValue)
    {
        if (value < lowerValue)
        {
            // Both settings named: either may be the one set wrong.
            throw new IllegalArgumentException(property + " must be at least " + lowerProperty + " (" +
                Configuration.asGiven(lowerProperty, lowerValue) + "): " + Configuration.asGiven(property, value));
        }
    }

    /**
     * Path management and health: how many paths a sender sprays over, how they are chosen, and when a path is taken
     * out of service and re-admitted (specification section 11). Each component is validated when the record is made,
     * naming its property.
     *
     * @param pathsPerPlane entropy values per plane a sender asks for (capped by the transport's entropy count); see
     * {@link Configuration#PATHS_PER_PLANE_PROP_NAME}.
     * @param repsRingCapacity size of the ring of recycled good paths (REPS); a power of two; see {@link
     * Configuration#REPS_RING_CAPACITY_PROP_NAME}.
     * @param planeWeightFloor least weight of a plane in the spray of new DATA relative to the heaviest plane, in (0,
     * 1]; see {@link Configuration#PLANE_WEIGHT_FLOOR_PROP_NAME}.
     * @param pathBurst consecutive new DATA a sender keeps on one path before its policy picks the next, 1 to {@link
     * Configuration#MAX_PATH_BURST} and at most the send burst; see {@link Configuration#PATH_BURST_PROP_NAME}.
     * @param pathEviction whether path health may take paths out of service (off for fabrics with adaptive routing);
     * see {@link Configuration#PATH_EVICTION_PROP_NAME}.
     * @param pathCounters whether every sender connection shows all its statistics and counters per path; see {@link
     * Configuration#PATH_COUNTERS_PROP_NAME}.
     * @param maxEvictFraction most paths that may be SUSPECT or EVICTED at once, as a fraction in [0, 1); see {@link
     * Configuration#MAX_EVICT_FRACTION_PROP_NAME}.
     * @param lossWindowSrtts two losses charged to a path within this many srtt make it SUSPECT; see {@link
     * Configuration#LOSS_WINDOW_SRTTS_PROP_NAME}.
     * @param probesBeforeEviction unanswered PATH probes after which a SUSPECT path is EVICTED; see {@link
     * Configuration#PROBES_BEFORE_EVICTION_PROP_NAME}.
     * @param probeIntervalMinNs lower bound of the PATH probe interval of a SUSPECT path (the interval is max(srtt,
     * this)); see {@link Configuration#PROBE_INTERVAL_MIN_NS_PROP_NAME}.
     * @param reprobeMinNs first re-probe delay of an EVICTED path, doubling while unanswered; see {@link
     * Configuration#REPROBE_MIN_NS_PROP_NAME}.
     * @param reprobeMaxNs cap of the re-probe delay of an EVICTED path; see {@link
     * Configuration#REPROBE_MAX_NS_PROP_NAME}.
     * @param readmissionProbeAcks consecutive PROBE_ACKs that re-admit an EVICTED path; see {@link
     * Configuration#READMISSION_PROBE_ACKS_PROP_NAME}.
     * @param rttOutlierFactor a path whose srtt exceeds this multiple of the median path srtt becomes SUSPECT; see
     * {@link Configuration#RTT_OUTLIER_FACTOR_PROP_NAME}.
     * @param planeDownFraction a plane is reported DOWN when this fraction of its paths is EVICTED; see {@link
     * Configuration#PLANE_DOWN_FRACTION_PROP_NAME}.
     */
    public record PathSettings(
        int pathsPerPlane,
        int repsRingCapacity,
        double planeWeightFloor,
        int pathBurst,
        boolean pathEviction,
        boolean pathCounters,
        double maxEvictFraction,
        int lossWindowSrtts,
        int probesBeforeEviction,
        long probeIntervalMinNs,
        long reprobeMinNs,
        long reprobeMaxNs,
        int readmissionProbeAcks,
        int rttOutlierFactor,
        double planeDownFraction)
    {
    }

    /**
     * Acknowledgement and tracking: the tracking window, how often and how much a receiver acknowledges, and how it
     * paces NACKs (sections 8, 9 and 14). Made by {@link Builder#build()}, which validates every component.
     *
     * @param mprPsns tracking window (MPR) in PSNs a sender asks for; a power of two in [64, 2^20]; see {@link
     * Configuration#MPR_PSNS_PROP_NAME}.
     * @param maxMprPsns largest tracking window a receiver grants; a power of two in [64, 2^20]; see {@link
     * Configuration#MAX_MPR_PSNS_PROP_NAME}.
     * @param sackWords sACK words (64 PSNs each) per ACK, 0 to 8; see {@link Configuration#SACK_WORDS_PROP_NAME}.
     * @param ackEveryPackets dATA packets after which a receiver acknowledges without waiting for the delayed-ACK
     * timer; see {@link Configuration#ACK_EVERY_PACKETS_PROP_NAME}.
     * @param ackEveryBytes payload bytes after which a receiver acknowledges without waiting for the delayed-ACK timer;
     * see {@link Configuration#ACK_EVERY_BYTES_PROP_NAME}.
     * @param delayedAckNs delayed-ACK timer, started by the first unacknowledged arrival; see {@link
     * Configuration#DELAYED_ACK_NS_PROP_NAME}.
     * @param nackIntervalNs receiver RTT estimate: at most one NACK per PSN per interval, and the ceiling of the hole
     * timer before INFERRED_LOSS; see {@link Configuration#NACK_INTERVAL_NS_PROP_NAME}.
     */
    public record AckSettings(
        int mprPsns,
        int maxMprPsns,
        int sackWords,
        int ackEveryPackets,
        int ackEveryBytes,
        long delayedAckNs,
        long nackIntervalNs)
    {
    }

    /**
     * Loss recovery: which loss-inference rules run, their thresholds, the tail-loss probe and retransmission timeouts,
     * and when a sender gives up (section 12). Each component is validated when the record is made, naming its
     * property.
     *
     * @param lossDetection loss-inference rules in force besides the timeout, comma separated: nack, pathseq, ooo,
     * rack, tlp; see {@link Configuration#LOSS_DETECTION_PROP_NAME}.
     * @param dupThreshMin lower bound of the out-of-order distance threshold, max(this, 3 x active paths) + (path
     * burst - 1) x active paths; see {@link Configuration#DUP_THRESH_MIN_PROP_NAME}.
     * @param pathSeqTolerance reordering tolerated on one path by the path-sequence gap rule (k); see {@link
     * Configuration#PATH_SEQ_TOLERANCE_PROP_NAME}.
     * @param reorderWindowMinNs lower bound of the RACK reordering window (wire specification, section 12.1 (d));
     * see {@link Configuration#REORDER_WINDOW_MIN_NS_PROP_NAME}.
     * @param tailLossProbeMinNs lower bound of the tail-loss probe timeout (wire specification, section 12.1 (e));
     * see {@link Configuration#TAIL_LOSS_PROBE_MIN_NS_PROP_NAME}.
     * @param rtoLowMinNs lower bound of RTO_low (at most 3 packets in flight): max(4 x baseRtt, srtt + 4 x rttvar +
     * delayedAck, this); see {@link Configuration#RTO_LOW_MIN_NS_PROP_NAME}.
     * @param rtoHighMinNs lower bound of RTO_high: max(srtt + 4 x rttvar, 8 x baseRtt, this); see {@link
     * Configuration#RTO_HIGH_MIN_NS_PROP_NAME}.
     * @param rtoMaxNs cap of the backed-off retransmission timeout; see {@link Configuration#RTO_MAX_NS_PROP_NAME}.
     * @param maxRetransmits transmissions of one PSN after which, once giveUpMinNs passed, the connection fails; see
     * {@link Configuration#MAX_RETRANSMITS_PROP_NAME}.
     * @param giveUpMinNs least time since a PSN's first transmission before the connection may give up on it; see
     * {@link Configuration#GIVE_UP_MIN_NS_PROP_NAME}.
     */
    public record LossRecoverySettings(
        String lossDetection,
        int dupThreshMin,
        int pathSeqTolerance,
        long reorderWindowMinNs,
        long tailLossProbeMinNs,
        long rtoLowMinNs,
        long rtoHighMinNs,
        long rtoMaxNs,
        int maxRetransmits,
        long giveUpMinNs)
    {
    }

    /**
     * Congestion control: whether a sender keeps a congestion window, the RTT it starts from and the gains of its
     * controller and pacer (section 13). Made by {@link Builder#build()}, which validates every component.
     *
     * @param senderWindow whether a sender asks for the delay-based congestion window; see {@link
     * Configuration#SENDER_WINDOW_PROP_NAME}.
     * @param baseRttHintNs expected unloaded RTT, 0 when unknown (announced in SETUP; sizes the initial window); see
     * {@link Configuration#BASE_RTT_HINT_NS_PROP_NAME}.
     * @param initialRttNs rTT assumed before the first sample when no hint is given; see {@link
     * Configuration#INITIAL_RTT_NS_PROP_NAME}.
     * @param baseRttWindowNs window of the base-RTT minimum; see {@link Configuration#BASE_RTT_WINDOW_NS_PROP_NAME}.
     * @param ccAdditiveIncrease additive increase in mtu per window of acknowledged bytes; see {@link
     * Configuration#CC_ADDITIVE_INCREASE_PROP_NAME}.
     * @param ccBeta gain of the delay-based multiplicative decrease; see {@link Configuration#CC_BETA_PROP_NAME}.
     * @param ccMaxMdf largest multiplicative decrease; see {@link Configuration#CC_MAX_MDF_PROP_NAME}.
     * @param ccSlackNs fixed part of the delay target above base RTT (wire specification, section 13.1); see
     * {@link Configuration#CC_SLACK_NS_PROP_NAME}.
     * @param pacingGain pacing rate as a multiple of cwnd / srtt after start-up (2 in start-up; AIMD paces only while
     * {@code cwnd < 4 x mtu}); see {@link Configuration#PACING_GAIN_PROP_NAME}.
     */
    public record CongestionSettings(
        boolean senderWindow,
        long baseRttHintNs,
        long initialRttNs,
        long baseRttWindowNs,
        double ccAdditiveIncrease,
        double ccBeta,
        double ccMaxMdf,
        long ccSlackNs,
        double pacingGain)
    {
    }

    /**
     * Receiver-driven credit: whether it is used, the budget and window of a receiver's grants, and how a sender asks
     * for more (section 10). Made by {@link Builder#build()}, which validates every component.
     *
     * @param receiverCredit whether this engine asks for (sender) and grants (receiver) receiver-driven credit; see
     * {@link Configuration#RECEIVER_CREDIT_PROP_NAME}.
     * @param initialCreditBytes bytes a sender asks to send before its first grant (about one BDP); see {@link
     * Configuration#INITIAL_CREDIT_BYTES_PROP_NAME}.
     * @param creditQuantum bytes per credit grant; see {@link Configuration#CREDIT_QUANTUM_PROP_NAME}.
     * @param creditOvercommit receiver grants at its budget times (1 + overcommit); see {@link
     * Configuration#CREDIT_OVERCOMMIT_PROP_NAME}.
     * @param creditRateMbps receiver credit budget in Mb/s; 0 uses linkRateMbps, and no rate limit when that is 0 too;
     * see {@link Configuration#CREDIT_RATE_MBPS_PROP_NAME}.
     * @param creditWindowBytes most granted-but-unreceived bytes over all of a receiver's senders; see {@link
     * Configuration#CREDIT_WINDOW_BYTES_PROP_NAME}.
     * @param creditHighWatermark image occupancy (fraction of its window) above which grants freeze and rcvCwndPenalty
     * rises; see {@link Configuration#CREDIT_HIGH_WATERMARK_PROP_NAME}.
     * @param creditRequestMinNs lower bound of the CREDIT_REQUEST interval, max(2 x srtt, this); see {@link
     * Configuration#CREDIT_REQUEST_MIN_NS_PROP_NAME}.
     * @param linkRateMbps this endpoint's aggregate link rate in Mb/s, 0 when unknown (announced in SETUP and
     * SETUP_ACK); see {@link Configuration#LINK_RATE_MBPS_PROP_NAME}.
     * @param retryAfterNs delay a receiver asks for in NACK RX_OVERFLOW before the sender retransmits; see {@link
     * Configuration#RETRY_AFTER_NS_PROP_NAME}.
     */
    public record CreditSettings(
        boolean receiverCredit,
        int initialCreditBytes,
        int creditQuantum,
        double creditOvercommit,
        long creditRateMbps,
        long creditWindowBytes,
        double creditHighWatermark,
        long creditRequestMinNs,
        long linkRateMbps,
        long retryAfterNs)
    {
    }

    /**
     * Connection timers: SETUP retries, keepalives, STATUS telemetry, timeouts, linger and CLOSE retries (sections 5
     * and 15). Each component is validated when the record is made, naming its property.
     *
     * @param setupRetryMinNs first SETUP retry delay, doubling; see {@link Configuration#SETUP_RETRY_MIN_NS_PROP_NAME}.
     * @param setupRetryMaxNs cap of the SETUP retry delay; see {@link Configuration#SETUP_RETRY_MAX_NS_PROP_NAME}.
     * @param keepaliveIntervalNs a sender with nothing to send probes (KEEPALIVE) this often; see {@link
     * Configuration#KEEPALIVE_INTERVAL_NS_PROP_NAME}.
     * @param statusIntervalNs period of STATUS telemetry from both ends; see {@link
     * Configuration#STATUS_INTERVAL_NS_PROP_NAME}.
     * @param connectionTimeoutNs silence from the peer after which a connection fails (sender) or closes (receiver);
     * see {@link Configuration#CONNECTION_TIMEOUT_NS_PROP_NAME}.
     * @param lingerTimeoutNs how long a closing sender waits for its data to be acknowledged, and a closed receiver
     * answers duplicate CLOSEs; see {@link Configuration#LINGER_TIMEOUT_NS_PROP_NAME}.
     * @param closeRetries cLOSE transmissions before a sender gives up waiting for CLOSE_ACK; see {@link
     * Configuration#CLOSE_RETRIES_PROP_NAME}.
     * @param closeRetryMinNs lower bound of the first CLOSE retry delay, max(RTO, this), doubling; see {@link
     * Configuration#CLOSE_RETRY_MIN_NS_PROP_NAME}.
     */
    public record TimerSettings(
        long setupRetryMinNs,
        long setupRetryMaxNs,
        long keepaliveIntervalNs,
        long statusIntervalNs,
        long connectionTimeoutNs,
        long lingerTimeoutNs,
        int closeRetries,
        long closeRetryMinNs)
    {
    }

    /**
     * Bounds on what remote peers may make a receiver hold (specification section 18.5): connections per source
     * host, streams opening or open per connection and per source host, the longest term a receiver opens, image
     * bytes (three terms per stream) per connection and per source host, and counters kept for local clients. A
     * SETUP or STREAM_OPEN beyond a bound is refused with RESOURCE_EXHAUSTED and counted by its drop reason; the peer
     * keeps what it holds and everyone else is served. Each component is validated when the record is made, naming
     * its property.
     *
     * @param maxConnectionsPerSource receiver connections one source host may hold; see {@link
     * Configuration#MAX_CONNECTIONS_PER_SOURCE_PROP_NAME}.
     * @param maxUnprovedConnections connections whose sender has not proved its address, beyond which the oldest is
     * evicted; see {@link Configuration#MAX_UNPROVED_CONNECTIONS_PROP_NAME}.
     * @param maxStreamsPerConnection streams opening or open per connection, announced as maxStreams; see {@link
     * Configuration#MAX_STREAMS_PER_CONNECTION_PROP_NAME}.
     * @param maxStreamsPerSource streams opening or open per source host; see {@link
     * Configuration#MAX_STREAMS_PER_SOURCE_PROP_NAME}.
     * @param maxTermLength longest term of a stream a receiver opens; see {@link
     * Configuration#MAX_TERM_LENGTH_PROP_NAME}.
     * @param maxImageBytesPerConnection image bytes per connection; see {@link
     * Configuration#MAX_IMAGE_BYTES_PER_CONNECTION_PROP_NAME}.
     * @param maxImageBytesPerSource image bytes per source host; see {@link
     * Configuration#MAX_IMAGE_BYTES_PER_SOURCE_PROP_NAME}.
     * @param countersReserve counters remote peers never take; see {@link Configuration#COUNTERS_RESERVE_PROP_NAME}.
     */
    public record PeerLimitSettings(
        int maxConnectionsPerSource,
        int maxUnprovedConnections,
        int maxStreamsPerConnection,
        int maxStreamsPerSource,
        int maxTermLength,
        long maxImageBytesPerConnection,
        long maxImageBytesPerSource,
        int countersReserve)
    {
    }
    /**
     * Mutable, flat builder of {@link EngineSettings}: one setter per property, validated together by
     * {@link #build()}.
     */
    public static final class Builder
    {
        private int mtu = Configuration.mtu();
        private int pollLimit = Configuration.pollLimit();
        private int sendBurst = Configuration.sendBurst();
        private int rejectReplyRate = Configuration.rejectReplyRate();
        private int rejectReplyBurst = Configuration.rejectReplyBurst();
        private int pathsPerPlane = Configuration.pathsPerPlane();
        private int repsRingCapacity = Configuration.repsRingCapacity();
        private double planeWeightFloor = Configuration.planeWeightFloor();
        private int pathBurst = Configuration.pathBurst();
        private boolean pathEviction = Configuration.pathEviction();
        private boolean pathCounters = Configuration.pathCounters();
        private double maxEvictFraction = Configuration.maxEvictFraction();
        private int lossWindowSrtts = Configuration.lossWindowSrtts();
        private int probesBeforeEviction = Configuration.probesBeforeEviction();
        private long probeIntervalMinNs = Configuration.probeIntervalMinNs();
        private long reprobeMinNs = Configuration.reprobeMinNs();
        private long reprobeMaxNs = Configuration.reprobeMaxNs();
        private int readmissionProbeAcks = Configuration.readmissionProbeAcks();
        private int rttOutlierFactor = Configuration.rttOutlierFactor();
        private double planeDownFraction = Configuration.planeDownFraction();
        private int mprPsns = Configuration.mprPsns();
        private int maxMprPsns = Configuration.maxMprPsns();
        private int sackWords = Configuration.sackWords();
        private int ackEveryPackets = Configuration.ackEveryPackets();
        private int ackEveryBytes = Configuration.ackEveryBytes();
        private long delayedAckNs = Configuration.delayedAckNs();
        private long nackIntervalNs = Configuration.nackIntervalNs();
        private String lossDetection = Configuration.lossDetection();
        private int dupThreshMin = Configuration.dupThreshMin();
        private int pathSeqTolerance = Configuration.pathSeqTolerance();
        private long reorderWindowMinNs = Configuration.reorderWindowMinNs();
        private long tailLossProbeMinNs = Configuration.tailLossProbeMinNs();
        private long rtoLowMinNs = Configuration.rtoLowMinNs();
        private long rtoHighMinNs = Configuration.rtoHighMinNs();
        private long rtoMaxNs = Configuration.rtoMaxNs();
        private int maxRetransmits = Configuration.maxRetransmits();
        private long giveUpMinNs = Configuration.giveUpMinNs();
        private boolean senderWindow = Configuration.senderWindow();
        private long baseRttHintNs = Configuration.baseRttHintNs();
        private long initialRttNs = Configuration.initialRttNs();
        private long baseRttWindowNs = Configuration.baseRttWindowNs();
        private double ccAdditiveIncrease = Configuration.ccAdditiveIncrease();
        private double ccBeta = Configuration.ccBeta();
        private double ccMaxMdf = Configuration.ccMaxMdf();
        private long ccSlackNs = Configuration.ccSlackNs();
        private double pacingGain = Configuration.pacingGain();
        private boolean receiverCredit = Configuration.receiverCredit();
        private int initialCreditBytes = Configuration.initialCreditBytes();
        private int creditQuantum = Configuration.creditQuantum();
        private double creditOvercommit = Configuration.creditOvercommit();
        private long creditRateMbps = Configuration.creditRateMbps();
        private long creditWindowBytes = Configuration.creditWindowBytes();
        private double creditHighWatermark = Configuration.creditHighWatermark();
        private long creditRequestMinNs = Configuration.creditRequestMinNs();
        private long linkRateMbps = Configuration.linkRateMbps();
        private long retryAfterNs = Configuration.retryAfterNs();
        private long setupRetryMinNs = Configuration.setupRetryMinNs();
        private long setupRetryMaxNs = Configuration.setupRetryMaxNs();
        private long keepaliveIntervalNs = Configuration.keepaliveIntervalNs();
        private long statusIntervalNs = Configuration.statusIntervalNs();
        private long connectionTimeoutNs = Configuration.connectionTimeoutNs();
        private long lingerTimeoutNs = Configuration.lingerTimeoutNs();
        private int closeRetries = Configuration.closeRetries();
        private long closeRetryMinNs = Configuration.closeRetryMinNs();
        private int maxConnectionsPerSource = Configuration.maxConnectionsPerSource();
        private int maxUnprovedConnections = Configuration.maxUnprovedConnections();
        private int maxStreamsPerConnection = Configuration.maxStreamsPerConnection();
        private int maxStreamsPerSource = Configuration.maxStreamsPerSource();
        private int maxTermLength = Configuration.maxTermLength();
        private long maxImageBytesPerConnection = Configuration.maxImageBytesPerConnection();
        private long maxImageBytesPerSource = Configuration.maxImageBytesPerSource();
        private int countersReserve = Configuration.countersReserve();

        private Builder()
        {
        }

        private Builder(final EngineSettings settings)
        {
            mtu = settings.mtu;
            pollLimit = settings.pollLimit;
            sendBurst = settings.sendBurst;
            rejectReplyRate = settings.rejectReplyRate;
            rejectReplyBurst = settings.rejectReplyBurst;
            pathsPerPlane = settings.paths.pathsPerPlane();
            repsRingCapacity = settings.paths.repsRingCapacity();
            planeWeightFloor = settings.paths.planeWeightFloor();
            pathBurst = settings.paths.pathBurst();
            pathEviction = settings.paths.pathEviction();
            pathCounters = settings.paths.pathCounters();
            maxEvictFraction = settings.paths.maxEvictFraction();
            lossWindowSrtts = settings.paths.lossWindowSrtts();
            probesBeforeEviction = settings.paths.probesBeforeEviction();
            probeIntervalMinNs = settings.paths.probeIntervalMinNs();
            reprobeMinNs = settings.paths.reprobeMinNs();
            reprobeMaxNs = settings.paths.reprobeMaxNs();
            readmissionProbeAcks = settings.paths.readmissionProbeAcks();
            rttOutlierFactor = settings.paths.rttOutlierFactor();
            planeDownFraction = settings.paths.planeDownFraction();
            mprPsns = settings.ack.mprPsns();
            maxMprPsns = settings.ack.maxMprPsns();
            sackWords = settings.ack.sackWords();
            ackEveryPackets = settings.ack.ackEveryPackets();
            ackEveryBytes = settings.ack.ackEveryBytes();
            delayedAckNs = settings.ack.delayedAckNs();
            nackIntervalNs = settings.ack.nackIntervalNs();
            lossDetection = settings.lossRecovery.lossDetection();
            dupThreshMin = settings.lossRecovery.dupThreshMin();
            pathSeqTolerance = settings.lossRecovery.pathSeqTolerance();
            reorderWindowMinNs = settings.lossRecovery.reorderWindowMinNs();
            tailLossProbeMinNs = settings.lossRecovery.tailLossProbeMinNs();
            rtoLowMinNs = settings.lossRecovery.rtoLowMinNs();
            rtoHighMinNs = settings.lossRecovery.rtoHighMinNs();
            rtoMaxNs = settings.lossRecovery.rtoMaxNs();
            maxRetransmits = settings.lossRecovery.maxRetransmits();
            giveUpMinNs = settings.lossRecovery.giveUpMinNs();
            senderWindow = settings.congestion.senderWindow();
            baseRttHintNs = settings.congestion.baseRttHintNs();
            initialRttNs = settings.congestion.initialRttNs();
            baseRttWindowNs = settings.congestion.baseRttWindowNs();
            ccAdditiveIncrease = settings.congestion.ccAdditiveIncrease();
            ccBeta = settings.congestion.ccBeta();
            ccMaxMdf = settings.congestion.ccMaxMdf();
            ccSlackNs = settings.congestion.ccSlackNs();
            pacingGain = settings.congestion.pacingGain();
            receiverCredit = settings.credit.receiverCredit();
            initialCreditBytes = settings.credit.initialCreditBytes();
            creditQuantum = settings.credit.creditQuantum();
            creditOvercommit = settings.credit.creditOvercommit();
            creditRateMbps = settings.credit.creditRateMbps();
            creditWindowBytes = settings.credit.creditWindowBytes();
            creditHighWatermark = settings.credit.creditHighWatermark();
            creditRequestMinNs = settings.credit.creditRequestMinNs();
            linkRateMbps = settings.credit.linkRateMbps();
            retryAfterNs = settings.credit.retryAfterNs();
            setupRetryMinNs = settings.timers.setupRetryMinNs();
            setupRetryMaxNs = settings.timers.setupRetryMaxNs();
            keepaliveIntervalNs = settings.timers.keepaliveIntervalNs();
            statusIntervalNs = settings.timers.statusIntervalNs();
            connectionTimeoutNs = settings.timers.connectionTimeoutNs();
            lingerTimeoutNs = settings.timers.lingerTimeoutNs();
            closeRetries = settings.timers.closeRetries();
            closeRetryMinNs = settings.timers.closeRetryMinNs();
            maxConnectionsPerSource = settings.limits.maxConnectionsPerSource();
            maxUnprovedConnections = settings.limits.maxUnprovedConnections();
            maxStreamsPerConnection = settings.limits.maxStreamsPerConnection();
            maxStreamsPerSource = settings.limits.maxStreamsPerSource();
            maxTermLength = settings.limits.maxTermLength();
            maxImageBytesPerConnection = settings.limits.maxImageBytesPerConnection();
            maxImageBytesPerSource = settings.limits.maxImageBytesPerSource();
            countersReserve = settings.limits.countersReserve();
        }

        /**
         * Largest UDP payload this engine sends or accepts on a connection (negotiated down to the peer's).
         *
         * @param mtu the value; see {@link Configuration#MTU_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder mtu(final int mtu)
        {
            this.mtu = mtu;
            return this;
        }

        /**
         * Datagrams received per poll.
         *
         * @param pollLimit the value; see {@link Configuration#POLL_LIMIT_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder pollLimit(final int pollLimit)
        {
            this.pollLimit = pollLimit;
            return this;
        }

        /**
         * DATA packets one connection may send per send call.
         *
         * @param sendBurst the value; see {@link Configuration#SEND_BURST_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder sendBurst(final int sendBurst)
        {
            this.sendBurst = sendBurst;
            return this;
        }

        /**
         * Most answers per second to packets of unknown connections and to refused SETUPs, over every peer.
         *
         * @param rejectReplyRate the value; see {@link Configuration#REJECT_REPLY_RATE_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder rejectReplyRate(final int rejectReplyRate)
        {
            this.rejectReplyRate = rejectReplyRate;
            return this;
        }

        /**
         * Answers to packets of unknown connections that may go back to back.
         *
         * @param rejectReplyBurst the value; see {@link Configuration#REJECT_REPLY_BURST_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder rejectReplyBurst(final int rejectReplyBurst)
        {
            this.rejectReplyBurst = rejectReplyBurst;
            return this;
        }

        /**
         * Entropy values per plane a sender asks for (capped by the transport's entropy count).
         *
         * @param pathsPerPlane the value; see {@link Configuration#PATHS_PER_PLANE_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder pathsPerPlane(final int pathsPerPlane)
        {
            this.pathsPerPlane = pathsPerPlane;
            return this;
        }

        /**
         * Size of the ring of recycled good paths (REPS); a power of two.
         *
         * @param repsRingCapacity the value; see {@link Configuration#REPS_RING_CAPACITY_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder repsRingCapacity(final int repsRingCapacity)
        {
            this.repsRingCapacity = repsRingCapacity;
            return this;
        }

        /**
         * Least weight of a plane in the spray of new DATA relative to the heaviest plane, in (0, 1].
         *
         * @param planeWeightFloor the value; see {@link Configuration#PLANE_WEIGHT_FLOOR_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder planeWeightFloor(final double planeWeightFloor)
        {
            this.planeWeightFloor = planeWeightFloor;
            return this;
        }

        /**
         * Consecutive new DATA a sender keeps on one path before its path policy picks the next.
         *
         * @param pathBurst the value; see {@link Configuration#PATH_BURST_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder pathBurst(final int pathBurst)
        {
            this.pathBurst = pathBurst;
            return this;
        }

        /**
         * Whether path health may take paths out of service (off for fabrics with adaptive routing).
         *
         * @param pathEviction the value; see {@link Configuration#PATH_EVICTION_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder pathEviction(final boolean pathEviction)
        {
            this.pathEviction = pathEviction;
            return this;
        }

        /**
         * Whether every sender connection shows all its statistics and counters per path.
         *
         * @param pathCounters the value; see {@link Configuration#PATH_COUNTERS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder pathCounters(final boolean pathCounters)
        {
            this.pathCounters = pathCounters;
            return this;
        }

        /**
         * Most paths that may be SUSPECT or EVICTED at once, as a fraction in [0, 1).
         *
         * @param maxEvictFraction the value; see {@link Configuration#MAX_EVICT_FRACTION_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder maxEvictFraction(final double maxEvictFraction)
        {
            this.maxEvictFraction = maxEvictFraction;
            return this;
        }

        /**
         * Two losses charged to a path within this many srtt make it SUSPECT.
         *
         * @param lossWindowSrtts the value; see {@link Configuration#LOSS_WINDOW_SRTTS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder lossWindowSrtts(final int lossWindowSrtts)
        {
            this.lossWindowSrtts = lossWindowSrtts;
            return this;
        }

        /**
         * Unanswered PATH probes after which a SUSPECT path is EVICTED.
         *
         * @param probesBeforeEviction the value; see {@link Configuration#PROBES_BEFORE_EVICTION_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder probesBeforeEviction(final int probesBeforeEviction)
        {
            this.probesBeforeEviction = probesBeforeEviction;
            return this;
        }

        /**
         * Lower bound of the PATH probe interval of a SUSPECT path (the interval is max(srtt, this)).
         *
         * @param probeIntervalMinNs the value; see {@link Configuration#PROBE_INTERVAL_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder probeIntervalMinNs(final long probeIntervalMinNs)
        {
            this.probeIntervalMinNs = probeIntervalMinNs;
            return this;
        }

        /**
         * First re-probe delay of an EVICTED path, doubling while unanswered.
         *
         * @param reprobeMinNs the value; see {@link Configuration#REPROBE_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder reprobeMinNs(final long reprobeMinNs)
        {
            this.reprobeMinNs = reprobeMinNs;
            return this;
        }

        /**
         * Cap of the re-probe delay of an EVICTED path.
         *
         * @param reprobeMaxNs the value; see {@link Configuration#REPROBE_MAX_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder reprobeMaxNs(final long reprobeMaxNs)
        {
            this.reprobeMaxNs = reprobeMaxNs;
            return this;
        }

        /**
         * Consecutive PROBE_ACKs that re-admit an EVICTED path.
         *
         * @param readmissionProbeAcks the value; see {@link Configuration#READMISSION_PROBE_ACKS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder readmissionProbeAcks(final int readmissionProbeAcks)
        {
            this.readmissionProbeAcks = readmissionProbeAcks;
            return this;
        }

        /**
         * A path whose srtt exceeds this multiple of the median path srtt becomes SUSPECT.
         *
         * @param rttOutlierFactor the value; see {@link Configuration#RTT_OUTLIER_FACTOR_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder rttOutlierFactor(final int rttOutlierFactor)
        {
            this.rttOutlierFactor = rttOutlierFactor;
            return this;
        }

        /**
         * A plane is reported DOWN when this fraction of its paths is EVICTED.
         *
         * @param planeDownFraction the value; see {@link Configuration#PLANE_DOWN_FRACTION_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder planeDownFraction(final double planeDownFraction)
        {
            this.planeDownFraction = planeDownFraction;
            return this;
        }

        /**
         * Tracking window (MPR) in PSNs a sender asks for; a power of two in [64, 2^20].
         *
         * @param mprPsns the value; see {@link Configuration#MPR_PSNS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder mprPsns(final int mprPsns)
        {
            this.mprPsns = mprPsns;
            return this;
        }

        /**
         * Largest tracking window a receiver grants; a power of two in [64, 2^20].
         *
         * @param maxMprPsns the value; see {@link Configuration#MAX_MPR_PSNS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder maxMprPsns(final int maxMprPsns)
        {
            this.maxMprPsns = maxMprPsns;
            return this;
        }

        /**
         * SACK words (64 PSNs each) per ACK, 0 to 8.
         *
         * @param sackWords the value; see {@link Configuration#SACK_WORDS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder sackWords(final int sackWords)
        {
            this.sackWords = sackWords;
            return this;
        }

        /**
         * DATA packets after which a receiver acknowledges without waiting for the delayed-ACK timer.
         *
         * @param ackEveryPackets the value; see {@link Configuration#ACK_EVERY_PACKETS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder ackEveryPackets(final int ackEveryPackets)
        {
            this.ackEveryPackets = ackEveryPackets;
            return this;
        }

        /**
         * Payload bytes after which a receiver acknowledges without waiting for the delayed-ACK timer.
         *
         * @param ackEveryBytes the value; see {@link Configuration#ACK_EVERY_BYTES_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder ackEveryBytes(final int ackEveryBytes)
        {
            this.ackEveryBytes = ackEveryBytes;
            return this;
        }

        /**
         * Delayed-ACK timer, started by the first unacknowledged arrival.
         *
         * @param delayedAckNs the value; see {@link Configuration#DELAYED_ACK_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder delayedAckNs(final long delayedAckNs)
        {
            this.delayedAckNs = delayedAckNs;
            return this;
        }

        /**
         * Receiver RTT estimate: at most one NACK per PSN per interval, and the ceiling of the hole timer before
         * INFERRED_LOSS.
         *
         * @param nackIntervalNs the value; see {@link Configuration#NACK_INTERVAL_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder nackIntervalNs(final long nackIntervalNs)
        {
            this.nackIntervalNs = nackIntervalNs;
            return this;
        }

        /**
         * Loss-inference rules in force besides the timeout, comma separated: nack, pathseq, ooo, rack, tlp.
         *
         * @param lossDetection the value; see {@link Configuration#LOSS_DETECTION_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder lossDetection(final String lossDetection)
        {
            this.lossDetection = lossDetection;
            return this;
        }

        /**
         * Lower bound of the out-of-order distance threshold, max(this, 3 x active paths) + (path burst - 1) x active
         * paths.
         *
         * @param dupThreshMin the value; see {@link Configuration#DUP_THRESH_MIN_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder dupThreshMin(final int dupThreshMin)
        {
            this.dupThreshMin = dupThreshMin;
            return this;
        }

        /**
         * Reordering tolerated on one path by the path-sequence gap rule (k).
         *
         * @param pathSeqTolerance the value; see {@link Configuration#PATH_SEQ_TOLERANCE_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder pathSeqTolerance(final int pathSeqTolerance)
        {
            this.pathSeqTolerance = pathSeqTolerance;
            return this;
        }

        /**
         * Lower bound of the RACK reordering window (wire specification, section 12.1 (d)).
         *
         * @param reorderWindowMinNs the value; see {@link Configuration#REORDER_WINDOW_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder reorderWindowMinNs(final long reorderWindowMinNs)
        {
            this.reorderWindowMinNs = reorderWindowMinNs;
            return this;
        }

        /**
         * Lower bound of the tail-loss probe timeout (wire specification, section 12.1 (e)).
         *
         * @param tailLossProbeMinNs the value; see {@link Configuration#TAIL_LOSS_PROBE_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder tailLossProbeMinNs(final long tailLossProbeMinNs)
        {
            this.tailLossProbeMinNs = tailLossProbeMinNs;
            return this;
        }

        /**
         * Lower bound of RTO_low (at most 3 packets in flight): max(4 x baseRtt, srtt + 4 x rttvar + delayedAck, this).
         *
         * @param rtoLowMinNs the value; see {@link Configuration#RTO_LOW_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder rtoLowMinNs(final long rtoLowMinNs)
        {
            this.rtoLowMinNs = rtoLowMinNs;
            return this;
        }

        /**
         * Lower bound of RTO_high: max(srtt + 4 x rttvar, 8 x baseRtt, this).
         *
         * @param rtoHighMinNs the value; see {@link Configuration#RTO_HIGH_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder rtoHighMinNs(final long rtoHighMinNs)
        {
            this.rtoHighMinNs = rtoHighMinNs;
            return this;
        }

        /**
         * Cap of the backed-off retransmission timeout.
         *
         * @param rtoMaxNs the value; see {@link Configuration#RTO_MAX_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder rtoMaxNs(final long rtoMaxNs)
        {
            this.rtoMaxNs = rtoMaxNs;
            return this;
        }

        /**
         * Transmissions of one PSN after which, once giveUpMinNs passed, the connection fails.
         *
         * @param maxRetransmits the value; see {@link Configuration#MAX_RETRANSMITS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder maxRetransmits(final int maxRetransmits)
        {
            this.maxRetransmits = maxRetransmits;
            return this;
        }

        /**
         * Least time since a PSN's first transmission before the connection may give up on it.
         *
         * @param giveUpMinNs the value; see {@link Configuration#GIVE_UP_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder giveUpMinNs(final long giveUpMinNs)
        {
            this.giveUpMinNs = giveUpMinNs;
            return this;
        }

        /**
         * Whether a sender asks for the delay-based congestion window.
         *
         * @param senderWindow the value; see {@link Configuration#SENDER_WINDOW_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder senderWindow(final boolean senderWindow)
        {
            this.senderWindow = senderWindow;
            return this;
        }

        /**
         * Expected unloaded RTT, 0 when unknown (announced in SETUP; sizes the initial window).
         *
         * @param baseRttHintNs the value; see {@link Configuration#BASE_RTT_HINT_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder baseRttHintNs(final long baseRttHintNs)
        {
            this.baseRttHintNs = baseRttHintNs;
            return this;
        }

        /**
         * RTT assumed before the first sample when no hint is given.
         *
         * @param initialRttNs the value; see {@link Configuration#INITIAL_RTT_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder initialRttNs(final long initialRttNs)
        {
            this.initialRttNs = initialRttNs;
            return this;
        }

        /**
         * Window of the base-RTT minimum.
         *
         * @param baseRttWindowNs the value; see {@link Configuration#BASE_RTT_WINDOW_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder baseRttWindowNs(final long baseRttWindowNs)
        {
            this.baseRttWindowNs = baseRttWindowNs;
            return this;
        }

        /**
         * Additive increase in mtu per window of acknowledged bytes.
         *
         * @param ccAdditiveIncrease the value; see {@link Configuration#CC_ADDITIVE_INCREASE_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder ccAdditiveIncrease(final double ccAdditiveIncrease)
        {
            this.ccAdditiveIncrease = ccAdditiveIncrease;
            return this;
        }

        /**
         * Gain of the delay-based multiplicative decrease.
         *
         * @param ccBeta the value; see {@link Configuration#CC_BETA_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder ccBeta(final double ccBeta)
        {
            this.ccBeta = ccBeta;
            return this;
        }

        /**
         * Largest multiplicative decrease.
         *
         * @param ccMaxMdf the value; see {@link Configuration#CC_MAX_MDF_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder ccMaxMdf(final double ccMaxMdf)
        {
            this.ccMaxMdf = ccMaxMdf;
            return this;
        }

        /**
         * Fixed part of the delay target above base RTT (wire specification, section 13.1).
         *
         * @param ccSlackNs the value; see {@link Configuration#CC_SLACK_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder ccSlackNs(final long ccSlackNs)
        {
            this.ccSlackNs = ccSlackNs;
            return this;
        }

        /**
         * Pacing rate as a multiple of cwnd / srtt after start-up (2 in start-up; AIMD paces only while
         * {@code cwnd < 4 x mtu}).
         *
         * @param pacingGain the value; see {@link Configuration#PACING_GAIN_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder pacingGain(final double pacingGain)
        {
            this.pacingGain = pacingGain;
            return this;
        }

        /**
         * Whether this engine asks for (sender) and grants (receiver) receiver-driven credit.
         *
         * @param receiverCredit the value; see {@link Configuration#RECEIVER_CREDIT_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder receiverCredit(final boolean receiverCredit)
        {
            this.receiverCredit = receiverCredit;
            return this;
        }

        /**
         * Bytes a sender asks to send before its first grant (about one BDP).
         *
         * @param initialCreditBytes the value; see {@link Configuration#INITIAL_CREDIT_BYTES_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder initialCreditBytes(final int initialCreditBytes)
        {
            this.initialCreditBytes = initialCreditBytes;
            return this;
        }

        /**
         * Bytes per credit grant.
         *
         * @param creditQuantum the value; see {@link Configuration#CREDIT_QUANTUM_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder creditQuantum(final int creditQuantum)
        {
            this.creditQuantum = creditQuantum;
            return this;
        }

        /**
         * Receiver grants at its budget times (1 + overcommit).
         *
         * @param creditOvercommit the value; see {@link Configuration#CREDIT_OVERCOMMIT_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder creditOvercommit(final double creditOvercommit)
        {
            this.creditOvercommit = creditOvercommit;
            return this;
        }

        /**
         * Receiver credit budget in Mb/s; 0 uses linkRateMbps, and no rate limit when that is 0 too.
         *
         * @param creditRateMbps the value; see {@link Configuration#CREDIT_RATE_MBPS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder creditRateMbps(final long creditRateMbps)
        {
            this.creditRateMbps = creditRateMbps;
            return this;
        }

        /**
         * Most granted-but-unreceived bytes over all of a receiver's senders.
         *
         * @param creditWindowBytes the value; see {@link Configuration#CREDIT_WINDOW_BYTES_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder creditWindowBytes(final long creditWindowBytes)
        {
            this.creditWindowBytes = creditWindowBytes;
            return this;
        }

        /**
         * Image occupancy (fraction of its window) above which grants freeze and rcvCwndPenalty rises.
         *
         * @param creditHighWatermark the value; see {@link Configuration#CREDIT_HIGH_WATERMARK_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder creditHighWatermark(final double creditHighWatermark)
        {
            this.creditHighWatermark = creditHighWatermark;
            return this;
        }

        /**
         * Lower bound of the CREDIT_REQUEST interval, max(2 x srtt, this).
         *
         * @param creditRequestMinNs the value; see {@link Configuration#CREDIT_REQUEST_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder creditRequestMinNs(final long creditRequestMinNs)
        {
            this.creditRequestMinNs = creditRequestMinNs;
            return this;
        }

        /**
         * This endpoint's aggregate link rate in Mb/s, 0 when unknown (announced in SETUP and SETUP_ACK).
         *
         * @param linkRateMbps the value; see {@link Configuration#LINK_RATE_MBPS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder linkRateMbps(final long linkRateMbps)
        {
            this.linkRateMbps = linkRateMbps;
            return this;
        }

        /**
         * Delay a receiver asks for in NACK RX_OVERFLOW before the sender retransmits.
         *
         * @param retryAfterNs the value; see {@link Configuration#RETRY_AFTER_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder retryAfterNs(final long retryAfterNs)
        {
            this.retryAfterNs = retryAfterNs;
            return this;
        }

        /**
         * First SETUP retry delay, doubling.
         *
         * @param setupRetryMinNs the value; see {@link Configuration#SETUP_RETRY_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder setupRetryMinNs(final long setupRetryMinNs)
        {
            this.setupRetryMinNs = setupRetryMinNs;
            return this;
        }

        /**
         * Cap of the SETUP retry delay.
         *
         * @param setupRetryMaxNs the value; see {@link Configuration#SETUP_RETRY_MAX_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder setupRetryMaxNs(final long setupRetryMaxNs)
        {
            this.setupRetryMaxNs = setupRetryMaxNs;
            return this;
        }

        /**
         * A sender with nothing to send probes (KEEPALIVE) this often.
         *
         * @param keepaliveIntervalNs the value; see {@link Configuration#KEEPALIVE_INTERVAL_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder keepaliveIntervalNs(final long keepaliveIntervalNs)
        {
            this.keepaliveIntervalNs = keepaliveIntervalNs;
            return this;
        }

        /**
         * Period of STATUS telemetry from both ends.
         *
         * @param statusIntervalNs the value; see {@link Configuration#STATUS_INTERVAL_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder statusIntervalNs(final long statusIntervalNs)
        {
            this.statusIntervalNs = statusIntervalNs;
            return this;
        }

        /**
         * Silence from the peer after which a connection fails (sender) or closes (receiver).
         *
         * @param connectionTimeoutNs the value; see {@link Configuration#CONNECTION_TIMEOUT_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder connectionTimeoutNs(final long connectionTimeoutNs)
        {
            this.connectionTimeoutNs = connectionTimeoutNs;
            return this;
        }

        /**
         * How long a closing sender waits for its data to be acknowledged, and a closed receiver answers duplicate
         * CLOSEs.
         *
         * @param lingerTimeoutNs the value; see {@link Configuration#LINGER_TIMEOUT_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder lingerTimeoutNs(final long lingerTimeoutNs)
        {
            this.lingerTimeoutNs = lingerTimeoutNs;
            return this;
        }

        /**
         * CLOSE transmissions before a sender gives up waiting for CLOSE_ACK.
         *
         * @param closeRetries the value; see {@link Configuration#CLOSE_RETRIES_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder closeRetries(final int closeRetries)
        {
            this.closeRetries = closeRetries;
            return this;
        }

        /**
         * Lower bound of the first CLOSE retry delay, max(RTO, this), doubling.
         *
         * @param closeRetryMinNs the value; see {@link Configuration#CLOSE_RETRY_MIN_NS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder closeRetryMinNs(final long closeRetryMinNs)
        {
            this.closeRetryMinNs = closeRetryMinNs;
            return this;
        }

        /**
         * Receiver connections one source host may hold.
         *
         * @param maxConnectionsPerSource the value; see {@link Configuration#MAX_CONNECTIONS_PER_SOURCE_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder maxConnectionsPerSource(final int maxConnectionsPerSource)
        {
            this.maxConnectionsPerSource = maxConnectionsPerSource;
            return this;
        }

        /**
         * Connections whose sender has not proved its address, beyond which the oldest is evicted.
         *
         * @param maxUnprovedConnections the value; see {@link Configuration#MAX_UNPROVED_CONNECTIONS_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder maxUnprovedConnections(final int maxUnprovedConnections)
        {
            this.maxUnprovedConnections = maxUnprovedConnections;
            return this;
        }

        /**
         * Streams opening or open per connection, announced as maxStreams.
         *
         * @param maxStreamsPerConnection the value; see {@link Configuration#MAX_STREAMS_PER_CONNECTION_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder maxStreamsPerConnection(final int maxStreamsPerConnection)
        {
            this.maxStreamsPerConnection = maxStreamsPerConnection;
            return this;
        }

        /**
         * Streams opening or open per source host.
         *
         * @param maxStreamsPerSource the value; see {@link Configuration#MAX_STREAMS_PER_SOURCE_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder maxStreamsPerSource(final int maxStreamsPerSource)
        {
            this.maxStreamsPerSource = maxStreamsPerSource;
            return this;
        }

        /**
         * Longest term of a stream a receiver opens.
         *
         * @param maxTermLength the value; see {@link Configuration#MAX_TERM_LENGTH_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder maxTermLength(final int maxTermLength)
        {
            this.maxTermLength = maxTermLength;
            return this;
        }

        /**
         * Image bytes one connection may make a receiver hold.
         *
         * @param maxImageBytesPerConnection the value; see {@link
         *                                   Configuration#MAX_IMAGE_BYTES_PER_CONNECTION_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder maxImageBytesPerConnection(final long maxImageBytesPerConnection)
        {
            this.maxImageBytesPerConnection = maxImageBytesPerConnection;
            return this;
        }

        /**
         * Image bytes one source host may make a receiver hold.
         *
         * @param maxImageBytesPerSource the value; see {@link Configuration#MAX_IMAGE_BYTES_PER_SOURCE_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder maxImageBytesPerSource(final long maxImageBytesPerSource)
        {
            this.maxImageBytesPerSource = maxImageBytesPerSource;
            return this;
        }

        /**
         * Counters remote peers never take.
         *
         * @param countersReserve the value; see {@link Configuration#COUNTERS_RESERVE_PROP_NAME}.
         * @return this for a fluent API.
         */
        public Builder countersReserve(final int countersReserve)
        {
            this.countersReserve = countersReserve;
            return this;
        }
        /**
         * Validate every value, in the order of the groups, and make the immutable settings.
         *
         * @return the settings.
         * @throws IllegalArgumentException naming the property of the first value out of range.
         */
        public EngineSettings build()
        {
            check(pathsPerPlane >= 1 && pathsPerPlane <= 1024, PATHS_PER_PLANE_PROP_NAME, pathsPerPlane);
            check(repsRingCapacity >= 1 && BitUtil.isPowerOfTwo(repsRingCapacity),
                REPS_RING_CAPACITY_PROP_NAME, repsRingCapacity);
            check(planeWeightFloor > 0.0 && planeWeightFloor <= 1.0, PLANE_WEIGHT_FLOOR_PROP_NAME, planeWeightFloor);
            if (pathBurst < 1 || pathBurst > Configuration.MAX_PATH_BURST)
            {
                throw new IllegalArgumentException(PATH_BURST_PROP_NAME + " must be 1 to " +
                    Configuration.MAX_PATH_BURST + ": " + Configuration.asGiven(PATH_BURST_PROP_NAME, pathBurst));
            }
            checkAtLeast(SEND_BURST_PROP_NAME, sendBurst, PATH_BURST_PROP_NAME, pathBurst);
            check(maxEvictFraction >= 0.0 && maxEvictFraction < 1.0, MAX_EVICT_FRACTION_PROP_NAME, maxEvictFraction);
            check(lossWindowSrtts >= 1, LOSS_WINDOW_SRTTS_PROP_NAME, lossWindowSrtts);
            check(probesBeforeEviction >= 1, PROBES_BEFORE_EVICTION_PROP_NAME, probesBeforeEviction);
            check(probeIntervalMinNs > 0, PROBE_INTERVAL_MIN_NS_PROP_NAME, probeIntervalMinNs);
            check(reprobeMinNs > 0, REPROBE_MIN_NS_PROP_NAME, reprobeMinNs);
            check(reprobeMaxNs > 0, REPROBE_MAX_NS_PROP_NAME, reprobeMaxNs);
            checkAtLeast(REPROBE_MAX_NS_PROP_NAME, reprobeMaxNs, REPROBE_MIN_NS_PROP_NAME, reprobeMinNs);
            check(readmissionProbeAcks >= 1, READMISSION_PROBE_ACKS_PROP_NAME, readmissionProbeAcks);
            check(rttOutlierFactor >= 2, RTT_OUTLIER_FACTOR_PROP_NAME, rttOutlierFactor);
            check(planeDownFraction > 0.0 && planeDownFraction <= 1.0,
                PLANE_DOWN_FRACTION_PROP_NAME, planeDownFraction);
            check(mprPsns >= 64 && mprPsns <= 1 << 20 && BitUtil.isPowerOfTwo(mprPsns), MPR_PSNS_PROP_NAME, mprPsns);
            check(maxMprPsns >= 64 && maxMprPsns <= 1 << 20 && BitUtil.isPowerOfTwo(maxMprPsns),
                MAX_MPR_PSNS_PROP_NAME, maxMprPsns);
            check(sackWords >= 0 && sackWords <= WireProtocol.MAX_SACK_WORDS, SACK_WORDS_PROP_NAME, sackWords);
            check(ackEveryPackets >= 1, ACK_EVERY_PACKETS_PROP_NAME, ackEveryPackets);
            check(ackEveryBytes >= 1, ACK_EVERY_BYTES_PROP_NAME, ackEveryBytes);
            check(delayedAckNs > 0, DELAYED_ACK_NS_PROP_NAME, delayedAckNs);
            check(nackIntervalNs > 0, NACK_INTERVAL_NS_PROP_NAME, nackIntervalNs);
            check(null != lossDetection && LossDetection.parse(lossDetection) >= 0,
                LOSS_DETECTION_PROP_NAME, lossDetection);
            check(dupThreshMin >= 1, DUP_THRESH_MIN_PROP_NAME, dupThreshMin);
            check(pathSeqTolerance >= 1 && pathSeqTolerance < 32768, PATH_SEQ_TOLERANCE_PROP_NAME, pathSeqTolerance);
            check(reorderWindowMinNs > 0, REORDER_WINDOW_MIN_NS_PROP_NAME, reorderWindowMinNs);
            check(tailLossProbeMinNs > 0, TAIL_LOSS_PROBE_MIN_NS_PROP_NAME, tailLossProbeMinNs);
            check(rtoLowMinNs > 0, RTO_LOW_MIN_NS_PROP_NAME, rtoLowMinNs);
            check(rtoHighMinNs > 0, RTO_HIGH_MIN_NS_PROP_NAME, rtoHighMinNs);
            check(rtoMaxNs > 0, RTO_MAX_NS_PROP_NAME, rtoMaxNs);
            check(maxRetransmits >= 1 && maxRetransmits <= 127, MAX_RETRANSMITS_PROP_NAME, maxRetransmits);
            check(giveUpMinNs >= 0, GIVE_UP_MIN_NS_PROP_NAME, giveUpMinNs);
            check(baseRttHintNs >= 0 && baseRttHintNs <= 0xFFFF_FFFFL, BASE_RTT_HINT_NS_PROP_NAME, baseRttHintNs);
            check(initialRttNs > 0, INITIAL_RTT_NS_PROP_NAME, initialRttNs);
            check(baseRttWindowNs > 0, BASE_RTT_WINDOW_NS_PROP_NAME, baseRttWindowNs);
            check(ccAdditiveIncrease > 0.0, CC_ADDITIVE_INCREASE_PROP_NAME, ccAdditiveIncrease);
            check(ccBeta > 0.0, CC_BETA_PROP_NAME, ccBeta);
            check(ccMaxMdf > 0.0 && ccMaxMdf < 1.0, CC_MAX_MDF_PROP_NAME, ccMaxMdf);
            check(ccSlackNs >= 0, CC_SLACK_NS_PROP_NAME, ccSlackNs);
            check(pacingGain > 0.0, PACING_GAIN_PROP_NAME, pacingGain);
            check(initialCreditBytes >= 0, INITIAL_CREDIT_BYTES_PROP_NAME, initialCreditBytes);
            check(creditQuantum > 0, CREDIT_QUANTUM_PROP_NAME, creditQuantum);
            check(creditOvercommit >= 0.0, CREDIT_OVERCOMMIT_PROP_NAME, creditOvercommit);
            check(creditRateMbps >= 0, CREDIT_RATE_MBPS_PROP_NAME, creditRateMbps);
            check(creditWindowBytes > 0, CREDIT_WINDOW_BYTES_PROP_NAME, creditWindowBytes);
            checkAtLeast(CREDIT_WINDOW_BYTES_PROP_NAME, creditWindowBytes, CREDIT_QUANTUM_PROP_NAME, creditQuantum);
            check(creditHighWatermark > 0.0 && creditHighWatermark <= 1.0,
                CREDIT_HIGH_WATERMARK_PROP_NAME, creditHighWatermark);
            check(creditRequestMinNs > 0, CREDIT_REQUEST_MIN_NS_PROP_NAME, creditRequestMinNs);
            check(linkRateMbps >= 0 && linkRateMbps <= 0xFFFF_FFFFL, LINK_RATE_MBPS_PROP_NAME, linkRateMbps);
            check(retryAfterNs >= 0 && retryAfterNs <= TimeUnit.MICROSECONDS.toNanos(65535),
                RETRY_AFTER_NS_PROP_NAME, retryAfterNs);
            check(setupRetryMinNs > 0, SETUP_RETRY_MIN_NS_PROP_NAME, setupRetryMinNs);
            check(setupRetryMaxNs > 0, SETUP_RETRY_MAX_NS_PROP_NAME, setupRetryMaxNs);
            checkAtLeast(SETUP_RETRY_MAX_NS_PROP_NAME, setupRetryMaxNs, SETUP_RETRY_MIN_NS_PROP_NAME, setupRetryMinNs);
            check(keepaliveIntervalNs > 0, KEEPALIVE_INTERVAL_NS_PROP_NAME, keepaliveIntervalNs);
            check(statusIntervalNs > 0, STATUS_INTERVAL_NS_PROP_NAME, statusIntervalNs);
            check(connectionTimeoutNs > 0, CONNECTION_TIMEOUT_NS_PROP_NAME, connectionTimeoutNs);
            check(lingerTimeoutNs >= 0, LINGER_TIMEOUT_NS_PROP_NAME, lingerTimeoutNs);
            check(closeRetries >= 1, CLOSE_RETRIES_PROP_NAME, closeRetries);
            check(closeRetryMinNs > 0, CLOSE_RETRY_MIN_NS_PROP_NAME, closeRetryMinNs);
            check(maxConnectionsPerSource >= 1, MAX_CONNECTIONS_PER_SOURCE_PROP_NAME, maxConnectionsPerSource);
            check(maxUnprovedConnections >= 1, MAX_UNPROVED_CONNECTIONS_PROP_NAME, maxUnprovedConnections);
            check(maxStreamsPerConnection >= 1, MAX_STREAMS_PER_CONNECTION_PROP_NAME, maxStreamsPerConnection);
            check(maxStreamsPerSource >= 1, MAX_STREAMS_PER_SOURCE_PROP_NAME, maxStreamsPerSource);
            check(maxTermLength >= WireProtocol.MIN_TERM_LENGTH && maxTermLength <= WireProtocol.MAX_TERM_LENGTH &&
                BitUtil.isPowerOfTwo(maxTermLength), MAX_TERM_LENGTH_PROP_NAME, maxTermLength);
            check(maxImageBytesPerConnection >= 3L * WireProtocol.MIN_TERM_LENGTH,
                MAX_IMAGE_BYTES_PER_CONNECTION_PROP_NAME, maxImageBytesPerConnection);
            check(maxImageBytesPerSource >= 3L * WireProtocol.MIN_TERM_LENGTH, MAX_IMAGE_BYTES_PER_SOURCE_PROP_NAME,
                maxImageBytesPerSource);
            check(countersReserve >= 0, COUNTERS_RESERVE_PROP_NAME, countersReserve);

            return new EngineSettings(
                this,
                new PathSettings(pathsPerPlane, repsRingCapacity, planeWeightFloor, pathBurst, pathEviction,
                    pathCounters, maxEvictFraction, lossWindowSrtts, probesBeforeEviction, probeIntervalMinNs,
                    reprobeMinNs, reprobeMaxNs, readmissionProbeAcks, rttOutlierFactor, planeDownFraction),
                new AckSettings(mprPsns, maxMprPsns, sackWords, ackEveryPackets, ackEveryBytes, delayedAckNs,
                    nackIntervalNs),
                new LossRecoverySettings(lossDetection, dupThreshMin, pathSeqTolerance, reorderWindowMinNs,
                    tailLossProbeMinNs, rtoLowMinNs, rtoHighMinNs, rtoMaxNs, maxRetransmits, giveUpMinNs),
                new CongestionSettings(senderWindow, baseRttHintNs, initialRttNs, baseRttWindowNs, ccAdditiveIncrease,
                    ccBeta, ccMaxMdf, ccSlackNs, pacingGain),
                new CreditSettings(receiverCredit, initialCreditBytes, creditQuantum, creditOvercommit, creditRateMbps,
                    creditWindowBytes, creditHighWatermark, creditRequestMinNs, linkRateMbps, retryAfterNs),
                new TimerSettings(setupRetryMinNs, setupRetryMaxNs, keepaliveIntervalNs, statusIntervalNs,
                    connectionTimeoutNs, lingerTimeoutNs, closeRetries, closeRetryMinNs),
                new PeerLimitSettings(maxConnectionsPerSource, maxUnprovedConnections, maxStreamsPerConnection,
                    maxStreamsPerSource, maxTermLength, maxImageBytesPerConnection, maxImageBytesPerSource,
                    countersReserve));
        }
    }
}
