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

import io.metaroce.datapath.counters.DropReason;
import org.agrona.SystemUtil;

import java.util.concurrent.TimeUnit;

/**
 * Property names and defaults of the transport engine, one pair per value of {@link EngineSettings}: the one set of
 * defaults, those of the MetaRoCE specification's defaults table, which the driver's channels use too. An
 * {@link EngineSettings#builder()} starts from the system property when it is set. Durations accept the suffixes of
 * {@link SystemUtil#getDurationInNanos(String, long)} ({@code 50us}, {@code 10ms}, ...), sizes those of
 * {@link SystemUtil#getSizeAsInt(String, int)} ({@code 64k}). A value that does not parse throws an
 * {@link IllegalArgumentException} naming the property, rather than falling back to the default.
 */
public final class Configuration
{
    private Configuration()
    {
    }

    /**
     * Property name of {@link #mtu()}.
     */
    public static final String MTU_PROP_NAME = "metaroce.datapath.mtu";

    /**
     * Default of {@link #mtu()}: largest UDP payload this engine sends or accepts on a connection (negotiated down to
     * the peer's). The largest multiple of 32 that a 1500-byte Ethernet frame carries as UDP payload without IP
     * fragmentation over IPv6 (1452) and IPv4 (1472): a DATA then holds a 1344-byte message and its frame header.
     */
    public static final int MTU_DEFAULT = 1440;

    /**
     * Smallest MTU an engine is configured with or accepts in a SETUP.
     */
    public static final int MIN_MTU = 128;

    /**
     * Largest UDP payload this engine sends or accepts on a connection (negotiated down to the peer's).
     *
     * @return the value of {@link #MTU_PROP_NAME}, or the default when it is not set.
     */
    public static int mtu()
    {
        return (int)sizeProperty(MTU_PROP_NAME, MTU_DEFAULT, Integer.MAX_VALUE);
    }

    /**
     * Property name of {@link #pathsPerPlane()}.
     */
    public static final String PATHS_PER_PLANE_PROP_NAME = "metaroce.datapath.paths.per.plane";

    /**
     * Default of {@link #pathsPerPlane()}: entropy values per plane a sender asks for (capped by the transport's
     * entropy count). Each is a source port, so a socket, of every send endpoint on every plane.
     */
    public static final int PATHS_PER_PLANE_DEFAULT = 4;

    /**
     * Entropy values per plane a sender asks for (capped by the transport's entropy count).
     *
     * @return the value of {@link #PATHS_PER_PLANE_PROP_NAME}, or the default when it is not set.
     */
    public static int pathsPerPlane()
    {
        return intProperty(PATHS_PER_PLANE_PROP_NAME, PATHS_PER_PLANE_DEFAULT);
    }

    /**
     * Property name of {@link #mprPsns()}.
     */
    public static final String MPR_PSNS_PROP_NAME = "metaroce.datapath.mpr.psns";

    /**
     * Default of {@link #mprPsns()}: tracking window (MPR) in PSNs a sender asks for; a power of two in [64, 2^20].
     */
    public static final int MPR_PSNS_DEFAULT = 16384;

    /**
     * Tracking window (MPR) in PSNs a sender asks for; a power of two in [64, 2^20].
     *
     * @return the value of {@link #MPR_PSNS_PROP_NAME}, or the default when it is not set.
     */
    public static int mprPsns()
    {
        return intProperty(MPR_PSNS_PROP_NAME, MPR_PSNS_DEFAULT);
    }

    /**
     * Property name of {@link #maxMprPsns()}.
     */
    public static final String MAX_MPR_PSNS_PROP_NAME = "metaroce.datapath.max.mpr.psns";

    /**
     * Default of {@link #maxMprPsns()}: largest tracking window a receiver grants; a power of two in [64, 2^20].
     */
    public static final int MAX_MPR_PSNS_DEFAULT = 1 << 20;

    /**
     * Largest tracking window a receiver grants; a power of two in [64, 2^20].
     *
     * @return the value of {@link #MAX_MPR_PSNS_PROP_NAME}, or the default when it is not set.
     */
    public static int maxMprPsns()
    {
        return intProperty(MAX_MPR_PSNS_PROP_NAME, MAX_MPR_PSNS_DEFAULT);
    }

    /**
     * Property name of {@link #repsRingCapacity()}.
     */
    public static final String REPS_RING_CAPACITY_PROP_NAME = "metaroce.datapath.reps.ring.capacity";

    /**
     * Default of {@link #repsRingCapacity()}: size of the ring of recycled good paths (REPS); a power of two.
     */
    public static final int REPS_RING_CAPACITY_DEFAULT = 16;

    /**
     * Size of the ring of recycled good paths (REPS); a power of two.
     *
     * @return the value of {@link #REPS_RING_CAPACITY_PROP_NAME}, or the default when it is not set.
     */
    public static int repsRingCapacity()
    {
        return intProperty(REPS_RING_CAPACITY_PROP_NAME, REPS_RING_CAPACITY_DEFAULT);
    }

    /**
     * Property name of {@link #planeWeightFloor()}.
     */
    public static final String PLANE_WEIGHT_FLOOR_PROP_NAME = "metaroce.datapath.plane.weight.floor";

    /**
     * Default of {@link #planeWeightFloor()}: a plane keeps at least 1/64 of the heaviest plane's weight in the spray
     * of new DATA.
     */
    public static final double PLANE_WEIGHT_FLOOR_DEFAULT = 1.0 / 64;

    /**
     * Least weight of a plane in the spray of new DATA relative to the heaviest plane, in (0, 1]: planes whose delay
     * grows past the others' lose weight down to this floor (specification section 11.2); 1 keeps the planes equal
     * (weighting off).
     *
     * @return the value of {@link #PLANE_WEIGHT_FLOOR_PROP_NAME}, or the default when it is not set.
     */
    public static double planeWeightFloor()
    {
        return doubleProperty(PLANE_WEIGHT_FLOOR_PROP_NAME, PLANE_WEIGHT_FLOOR_DEFAULT);
    }

    /**
     * Property name of {@link #pathBurst()}.
     */
    public static final String PATH_BURST_PROP_NAME = "metaroce.datapath.path.burst";

    /**
     * Default of {@link #pathBurst()}: consecutive new DATA of a connection on one path before the path policy picks
     * the next. A path per packet: longer bursts cost goodput and queue drops on the simulated fabric, where the
     * network is the limit; where the sender's CPU is, its passes end at the send burst and go in runs on one path
     * whatever this is (docs/performance.md).
     */
    public static final int PATH_BURST_DEFAULT = 1;

    /**
     * Largest {@link #pathBurst()}: longer runs on one path reorder more than the loss rules allow for cheaply.
     */
    public static final int MAX_PATH_BURST = 64;

    /**
     * Consecutive new DATA of a connection a sender keeps on one path before its path policy picks the next, 1 to
     * {@link #MAX_PATH_BURST} and at most the send burst (specification section 11.2): runs on one path let
     * segmentation offload send them as one; 1 asks the path policy for every packet (a send pass still keeps to one
     * path per plane, {@link io.metaroce.datapath.path.PathBurst#startPass()}, and a pass after one that its send
     * burst ended goes in one run, {@link io.metaroce.datapath.path.PathBurst#startPass(int)}). A channel's
     * {@code path-burst} sets it for one stream.
     *
     * @return the value of {@link #PATH_BURST_PROP_NAME}, or the default when it is not set.
     */
    public static int pathBurst()
    {
        return intProperty(PATH_BURST_PROP_NAME, PATH_BURST_DEFAULT);
    }

    /**
     * Property name of {@link #pathEviction()}.
     */
    public static final String PATH_EVICTION_PROP_NAME = "metaroce.datapath.path.eviction";

    /**
     * Default of {@link #pathEviction()}: whether path health may take paths out of service (off for fabrics with
     * adaptive routing).
     */
    public static final boolean PATH_EVICTION_DEFAULT = true;

    /**
     * Whether path health may take paths out of service (off for fabrics with adaptive routing).
     *
     * @return the value of {@link #PATH_EVICTION_PROP_NAME}, or the default when it is not set.
     */
    public static boolean pathEviction()
    {
        return booleanProperty(PATH_EVICTION_PROP_NAME, PATH_EVICTION_DEFAULT);
    }

    /**
     * Property name of {@link #pathCounters()}.
     */
    public static final String PATH_COUNTERS_PROP_NAME = "metaroce.datapath.path.counters";

    /**
     * Default of {@link #pathCounters()}: sender connections show their state, retransmissions, window and RTT, and
     * their paths add to the engine's per-plane totals, so that a driver's counters do not grow with its paths.
     */
    public static final boolean PATH_COUNTERS_DEFAULT = false;

    /**
     * Whether every sender connection also shows all its statistics and a set of counters per path (a channel's
     * {@code path-counters=true} asks for them for one stream).
     *
     * @return the value of {@link #PATH_COUNTERS_PROP_NAME}, or the default when it is not set.
     */
    public static boolean pathCounters()
    {
        return booleanProperty(PATH_COUNTERS_PROP_NAME, PATH_COUNTERS_DEFAULT);
    }

    /**
     * Property name of {@link #maxEvictFraction()}.
     */
    public static final String MAX_EVICT_FRACTION_PROP_NAME = "metaroce.datapath.max.evict.fraction";

    /**
     * Default of {@link #maxEvictFraction()}: most paths that may be SUSPECT or EVICTED at once, as a fraction in [0,
     * 1).
     */
    public static final double MAX_EVICT_FRACTION_DEFAULT = 0.5;

    /**
     * Most paths that may be SUSPECT or EVICTED at once, as a fraction in [0, 1).
     *
     * @return the value of {@link #MAX_EVICT_FRACTION_PROP_NAME}, or the default when it is not set.
     */
    public static double maxEvictFraction()
    {
        return doubleProperty(MAX_EVICT_FRACTION_PROP_NAME, MAX_EVICT_FRACTION_DEFAULT);
    }

    /**
     * Property name of {@link #lossWindowSrtts()}.
     */
    public static final String LOSS_WINDOW_SRTTS_PROP_NAME = "metaroce.datapath.loss.window.srtts";

    /**
     * Default of {@link #lossWindowSrtts()}: two losses charged to a path within this many srtt make it SUSPECT.
     */
    public static final int LOSS_WINDOW_SRTTS_DEFAULT = 4;

    /**
     * Two losses charged to a path within this many srtt make it SUSPECT.
     *
     * @return the value of {@link #LOSS_WINDOW_SRTTS_PROP_NAME}, or the default when it is not set.
     */
    public static int lossWindowSrtts()
    {
        return intProperty(LOSS_WINDOW_SRTTS_PROP_NAME, LOSS_WINDOW_SRTTS_DEFAULT);
    }

    /**
     * Property name of {@link #probesBeforeEviction()}.
     */
    public static final String PROBES_BEFORE_EVICTION_PROP_NAME = "metaroce.datapath.probes.before.eviction";

    /**
     * Default of {@link #probesBeforeEviction()}: unanswered PATH probes after which a SUSPECT path is EVICTED.
     */
    public static final int PROBES_BEFORE_EVICTION_DEFAULT = 3;

    /**
     * Unanswered PATH probes after which a SUSPECT path is EVICTED.
     *
     * @return the value of {@link #PROBES_BEFORE_EVICTION_PROP_NAME}, or the default when it is not set.
     */
    public static int probesBeforeEviction()
    {
        return intProperty(PROBES_BEFORE_EVICTION_PROP_NAME, PROBES_BEFORE_EVICTION_DEFAULT);
    }

    /**
     * Property name of {@link #probeIntervalMinNs()}.
     */
    public static final String PROBE_INTERVAL_MIN_NS_PROP_NAME = "metaroce.datapath.probe.interval.min";

    /**
     * Default of {@link #probeIntervalMinNs()}: lower bound of the PATH probe interval of a SUSPECT path (the interval
     * is max(srtt, this)).
     */
    public static final long PROBE_INTERVAL_MIN_NS_DEFAULT = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * Lower bound of the PATH probe interval of a SUSPECT path (the interval is max(srtt, this)).
     *
     * @return the value of {@link #PROBE_INTERVAL_MIN_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long probeIntervalMinNs()
    {
        return durationProperty(PROBE_INTERVAL_MIN_NS_PROP_NAME, PROBE_INTERVAL_MIN_NS_DEFAULT);
    }

    /**
     * Property name of {@link #reprobeMinNs()}.
     */
    public static final String REPROBE_MIN_NS_PROP_NAME = "metaroce.datapath.reprobe.min";

    /**
     * Default of {@link #reprobeMinNs()}: first re-probe delay of an EVICTED path, doubling while unanswered.
     */
    public static final long REPROBE_MIN_NS_DEFAULT = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * First re-probe delay of an EVICTED path, doubling while unanswered.
     *
     * @return the value of {@link #REPROBE_MIN_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long reprobeMinNs()
    {
        return durationProperty(REPROBE_MIN_NS_PROP_NAME, REPROBE_MIN_NS_DEFAULT);
    }

    /**
     * Property name of {@link #reprobeMaxNs()}.
     */
    public static final String REPROBE_MAX_NS_PROP_NAME = "metaroce.datapath.reprobe.max";

    /**
     * Default of {@link #reprobeMaxNs()}: cap of the re-probe delay of an EVICTED path.
     */
    public static final long REPROBE_MAX_NS_DEFAULT = TimeUnit.SECONDS.toNanos(1);

    /**
     * Cap of the re-probe delay of an EVICTED path.
     *
     * @return the value of {@link #REPROBE_MAX_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long reprobeMaxNs()
    {
        return durationProperty(REPROBE_MAX_NS_PROP_NAME, REPROBE_MAX_NS_DEFAULT);
    }

    /**
     * Property name of {@link #readmissionProbeAcks()}.
     */
    public static final String READMISSION_PROBE_ACKS_PROP_NAME = "metaroce.datapath.readmission.probe.acks";

    /**
     * Default of {@link #readmissionProbeAcks()}: consecutive PROBE_ACKs that re-admit an EVICTED path.
     */
    public static final int READMISSION_PROBE_ACKS_DEFAULT = 3;

    /**
     * Consecutive PROBE_ACKs that re-admit an EVICTED path.
     *
     * @return the value of {@link #READMISSION_PROBE_ACKS_PROP_NAME}, or the default when it is not set.
     */
    public static int readmissionProbeAcks()
    {
        return intProperty(READMISSION_PROBE_ACKS_PROP_NAME, READMISSION_PROBE_ACKS_DEFAULT);
    }

    /**
     * Property name of {@link #rttOutlierFactor()}.
     */
    public static final String RTT_OUTLIER_FACTOR_PROP_NAME = "metaroce.datapath.rtt.outlier.factor";

    /**
     * Default of {@link #rttOutlierFactor()}: a path whose srtt exceeds this multiple of the median path srtt becomes
     * SUSPECT.
     */
    public static final int RTT_OUTLIER_FACTOR_DEFAULT = 8;

    /**
     * A path whose srtt exceeds this multiple of the median path srtt becomes SUSPECT.
     *
     * @return the value of {@link #RTT_OUTLIER_FACTOR_PROP_NAME}, or the default when it is not set.
     */
    public static int rttOutlierFactor()
    {
        return intProperty(RTT_OUTLIER_FACTOR_PROP_NAME, RTT_OUTLIER_FACTOR_DEFAULT);
    }

    /**
     * Property name of {@link #planeDownFraction()}.
     */
    public static final String PLANE_DOWN_FRACTION_PROP_NAME = "metaroce.datapath.plane.down.fraction";

    /**
     * Default of {@link #planeDownFraction()}: a plane is reported DOWN when this fraction of its paths is EVICTED.
     */
    public static final double PLANE_DOWN_FRACTION_DEFAULT = 0.75;

    /**
     * A plane is reported DOWN when this fraction of its paths is EVICTED.
     *
     * @return the value of {@link #PLANE_DOWN_FRACTION_PROP_NAME}, or the default when it is not set.
     */
    public static double planeDownFraction()
    {
        return doubleProperty(PLANE_DOWN_FRACTION_PROP_NAME, PLANE_DOWN_FRACTION_DEFAULT);
    }

    /**
     * Property name of {@link #sackWords()}.
     */
    public static final String SACK_WORDS_PROP_NAME = "metaroce.datapath.sack.words";

    /**
     * Default of {@link #sackWords()}: SACK words (64 PSNs each) per ACK, 0 to 8.
     */
    public static final int SACK_WORDS_DEFAULT = 8;

    /**
     * SACK words (64 PSNs each) per ACK, 0 to 8.
     *
     * @return the value of {@link #SACK_WORDS_PROP_NAME}, or the default when it is not set.
     */
    public static int sackWords()
    {
        return intProperty(SACK_WORDS_PROP_NAME, SACK_WORDS_DEFAULT);
    }

    /**
     * Property name of {@link #ackEveryPackets()}.
     */
    public static final String ACK_EVERY_PACKETS_PROP_NAME = "metaroce.datapath.ack.every.packets";

    /**
     * Default of {@link #ackEveryPackets()}: DATA packets after which a receiver acknowledges without waiting for the
     * delayed-ACK timer.
     */
    public static final int ACK_EVERY_PACKETS_DEFAULT = 8;

    /**
     * DATA packets after which a receiver acknowledges without waiting for the delayed-ACK timer.
     *
     * @return the value of {@link #ACK_EVERY_PACKETS_PROP_NAME}, or the default when it is not set.
     */
    public static int ackEveryPackets()
    {
        return intProperty(ACK_EVERY_PACKETS_PROP_NAME, ACK_EVERY_PACKETS_DEFAULT);
    }

    /**
     * Property name of {@link #ackEveryBytes()}.
     */
    public static final String ACK_EVERY_BYTES_PROP_NAME = "metaroce.datapath.ack.every.bytes";

    /**
     * Default of {@link #ackEveryBytes()}: payload bytes after which a receiver acknowledges without waiting for the
     * delayed-ACK timer.
     */
    public static final int ACK_EVERY_BYTES_DEFAULT = 16 * 1024;

    /**
     * Payload bytes after which a receiver acknowledges without waiting for the delayed-ACK timer.
     *
     * @return the value of {@link #ACK_EVERY_BYTES_PROP_NAME}, or the default when it is not set.
     */
    public static int ackEveryBytes()
    {
        return (int)sizeProperty(ACK_EVERY_BYTES_PROP_NAME, ACK_EVERY_BYTES_DEFAULT, Integer.MAX_VALUE);
    }

    /**
     * Property name of {@link #delayedAckNs()}.
     */
    public static final String DELAYED_ACK_NS_PROP_NAME = "metaroce.datapath.delayed.ack";

    /**
     * Default of {@link #delayedAckNs()}: delayed-ACK timer, started by the first unacknowledged arrival. Long
     * enough that a request-response stream with round trips of tens of microseconds is not answered by an ACK
     * datagram per message (each costs a send and a receive system call on both drivers' data path), short enough
     * that the tail-loss probe, which waits for it, stays well under a millisecond.
     */
    public static final long DELAYED_ACK_NS_DEFAULT = TimeUnit.MICROSECONDS.toNanos(200);

    /**
     * Delayed-ACK timer, started by the first unacknowledged arrival.
     *
     * @return the value of {@link #DELAYED_ACK_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long delayedAckNs()
    {
        return durationProperty(DELAYED_ACK_NS_PROP_NAME, DELAYED_ACK_NS_DEFAULT);
    }

    /**
     * Property name of {@link #dupThreshMin()}.
     */
    public static final String DUP_THRESH_MIN_PROP_NAME = "metaroce.datapath.dup.thresh.min";

    /**
     * Default of {@link #dupThreshMin()}: lower bound of the out-of-order distance threshold, max(this, 3 x active
     * paths).
     */
    public static final int DUP_THRESH_MIN_DEFAULT = 32;

    /**
     * Lower bound of the out-of-order distance threshold, max(this, 3 x active paths) + (path burst - 1) x active
     * paths.
     *
     * @return the value of {@link #DUP_THRESH_MIN_PROP_NAME}, or the default when it is not set.
     */
    public static int dupThreshMin()
    {
        return intProperty(DUP_THRESH_MIN_PROP_NAME, DUP_THRESH_MIN_DEFAULT);
    }

    /**
     * Property name of {@link #pathSeqTolerance()}.
     */
    public static final String PATH_SEQ_TOLERANCE_PROP_NAME = "metaroce.datapath.path.seq.tolerance";

    /**
     * Default of {@link #pathSeqTolerance()}: reordering tolerated on one path by the path-sequence gap rule (k).
     */
    public static final int PATH_SEQ_TOLERANCE_DEFAULT = 1;

    /**
     * Reordering tolerated on one path by the path-sequence gap rule (k).
     *
     * @return the value of {@link #PATH_SEQ_TOLERANCE_PROP_NAME}, or the default when it is not set.
     */
    public static int pathSeqTolerance()
    {
        return intProperty(PATH_SEQ_TOLERANCE_PROP_NAME, PATH_SEQ_TOLERANCE_DEFAULT);
    }

    /**
     * Property name of {@link #reorderWindowMinNs()}.
     */
    public static final String REORDER_WINDOW_MIN_NS_PROP_NAME = "metaroce.datapath.reorder.window.min";

    /**
     * Default of {@link #reorderWindowMinNs()}: lower bound of the RACK reordering window reoWnd (wire specification,
     * section 12.1 (d)).
     */
    public static final long REORDER_WINDOW_MIN_NS_DEFAULT = TimeUnit.MICROSECONDS.toNanos(50);

    /**
     * Lower bound of the RACK reordering window reoWnd (wire specification, section 12.1 (d)).
     *
     * @return the value of {@link #REORDER_WINDOW_MIN_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long reorderWindowMinNs()
    {
        return durationProperty(REORDER_WINDOW_MIN_NS_PROP_NAME, REORDER_WINDOW_MIN_NS_DEFAULT);
    }

    /**
     * Property name of {@link #tailLossProbeMinNs()}.
     */
    public static final String TAIL_LOSS_PROBE_MIN_NS_PROP_NAME = "metaroce.datapath.tlp.min";

    /**
     * Default of {@link #tailLossProbeMinNs()}: lower bound of the tail-loss probe timeout (wire specification, section
     * 12.1 (e)).
     */
    public static final long TAIL_LOSS_PROBE_MIN_NS_DEFAULT = TimeUnit.MICROSECONDS.toNanos(100);

    /**
     * Lower bound of the tail-loss probe timeout (wire specification, section 12.1 (e)).
     *
     * @return the value of {@link #TAIL_LOSS_PROBE_MIN_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long tailLossProbeMinNs()
    {
        return durationProperty(TAIL_LOSS_PROBE_MIN_NS_PROP_NAME, TAIL_LOSS_PROBE_MIN_NS_DEFAULT);
    }

    /**
     * Property name of {@link #rtoLowMinNs()}.
     */
    public static final String RTO_LOW_MIN_NS_PROP_NAME = "metaroce.datapath.rto.low.min";

    /**
     * Default of {@link #rtoLowMinNs()}: lower bound of RTO_low (at most 3 packets in flight):
     * max(4 x baseRtt, srtt + 4 x rttvar + delayedAck, this).
     */
    public static final long RTO_LOW_MIN_NS_DEFAULT = TimeUnit.MICROSECONDS.toNanos(100);

    /**
     * Lower bound of RTO_low (at most 3 packets in flight): max(4 x baseRtt, srtt + 4 x rttvar + delayedAck, this).
     *
     * @return the value of {@link #RTO_LOW_MIN_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long rtoLowMinNs()
    {
        return durationProperty(RTO_LOW_MIN_NS_PROP_NAME, RTO_LOW_MIN_NS_DEFAULT);
    }

    /**
     * Property name of {@link #rtoHighMinNs()}.
     */
    public static final String RTO_HIGH_MIN_NS_PROP_NAME = "metaroce.datapath.rto.high.min";

    /**
     * Default of {@link #rtoHighMinNs()}: lower bound of RTO_high: max(srtt + 4 x rttvar, 8 x baseRtt, this).
     */
    public static final long RTO_HIGH_MIN_NS_DEFAULT = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * Lower bound of RTO_high: max(srtt + 4 x rttvar, 8 x baseRtt, this).
     *
     * @return the value of {@link #RTO_HIGH_MIN_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long rtoHighMinNs()
    {
        return durationProperty(RTO_HIGH_MIN_NS_PROP_NAME, RTO_HIGH_MIN_NS_DEFAULT);
    }

    /**
     * Property name of {@link #rtoMaxNs()}.
     */
    public static final String RTO_MAX_NS_PROP_NAME = "metaroce.datapath.rto.max";

    /**
     * Default of {@link #rtoMaxNs()}: cap of the backed-off retransmission timeout.
     */
    public static final long RTO_MAX_NS_DEFAULT = TimeUnit.SECONDS.toNanos(1);

    /**
     * Cap of the backed-off retransmission timeout.
     *
     * @return the value of {@link #RTO_MAX_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long rtoMaxNs()
    {
        return durationProperty(RTO_MAX_NS_PROP_NAME, RTO_MAX_NS_DEFAULT);
    }

    /**
     * Property name of {@link #maxRetransmits()}.
     */
    public static final String MAX_RETRANSMITS_PROP_NAME = "metaroce.datapath.max.retransmits";

    /**
     * Default of {@link #maxRetransmits()}: transmissions of one PSN after which, once giveUpMinNs passed, the
     * connection fails.
     */
    public static final int MAX_RETRANSMITS_DEFAULT = 16;

    /**
     * Transmissions of one PSN after which, once giveUpMinNs passed, the connection fails.
     *
     * @return the value of {@link #MAX_RETRANSMITS_PROP_NAME}, or the default when it is not set.
     */
    public static int maxRetransmits()
    {
        return intProperty(MAX_RETRANSMITS_PROP_NAME, MAX_RETRANSMITS_DEFAULT);
    }

    /**
     * Property name of {@link #giveUpMinNs()}.
     */
    public static final String GIVE_UP_MIN_NS_PROP_NAME = "metaroce.datapath.give.up.min";

    /**
     * Default of {@link #giveUpMinNs()}: least time since a PSN's first transmission before the connection may give up
     * on it.
     */
    public static final long GIVE_UP_MIN_NS_DEFAULT = TimeUnit.MILLISECONDS.toNanos(100);

    /**
     * Least time since a PSN's first transmission before the connection may give up on it.
     *
     * @return the value of {@link #GIVE_UP_MIN_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long giveUpMinNs()
    {
        return durationProperty(GIVE_UP_MIN_NS_PROP_NAME, GIVE_UP_MIN_NS_DEFAULT);
    }

    /**
     * Property name of {@link #lossDetection()}.
     */
    public static final String LOSS_DETECTION_PROP_NAME = "metaroce.datapath.loss.detection";

    /**
     * Default of {@link #lossDetection()}: loss-inference rules in force besides the timeout, comma separated: nack,
     * pathseq, ooo, rack, tlp.
     */
    public static final String LOSS_DETECTION_DEFAULT = "nack,pathseq,ooo,rack,tlp";

    /**
     * Loss-inference rules in force besides the timeout, comma separated: nack, pathseq, ooo, rack, tlp.
     *
     * @return the value of {@link #LOSS_DETECTION_PROP_NAME}, or the default when it is not set.
     */
    public static String lossDetection()
    {
        return System.getProperty(LOSS_DETECTION_PROP_NAME, LOSS_DETECTION_DEFAULT);
    }

    /**
     * Property name of {@link #senderWindow()}.
     */
    public static final String SENDER_WINDOW_PROP_NAME = "metaroce.datapath.sender.window";

    /**
     * Default of {@link #senderWindow()}: whether a sender asks for the delay-based congestion window.
     */
    public static final boolean SENDER_WINDOW_DEFAULT = true;

    /**
     * Whether a sender asks for the delay-based congestion window.
     *
     * @return the value of {@link #SENDER_WINDOW_PROP_NAME}, or the default when it is not set.
     */
    public static boolean senderWindow()
    {
        return booleanProperty(SENDER_WINDOW_PROP_NAME, SENDER_WINDOW_DEFAULT);
    }

    /**
     * Property name of {@link #receiverCredit()}.
     */
    public static final String RECEIVER_CREDIT_PROP_NAME = "metaroce.datapath.receiver.credit";

    /**
     * Default of {@link #receiverCredit()}: whether this engine asks for (sender) and grants (receiver) receiver-driven
     * credit.
     */
    public static final boolean RECEIVER_CREDIT_DEFAULT = true;

    /**
     * Whether this engine asks for (sender) and grants (receiver) receiver-driven credit.
     *
     * @return the value of {@link #RECEIVER_CREDIT_PROP_NAME}, or the default when it is not set.
     */
    public static boolean receiverCredit()
    {
        return booleanProperty(RECEIVER_CREDIT_PROP_NAME, RECEIVER_CREDIT_DEFAULT);
    }

    /**
     * Property name of {@link #initialCreditBytes()}.
     */
    public static final String INITIAL_CREDIT_BYTES_PROP_NAME = "metaroce.datapath.initial.credit";

    /**
     * Default of {@link #initialCreditBytes()}: bytes a sender asks to send before its first grant (about one BDP).
     */
    public static final int INITIAL_CREDIT_BYTES_DEFAULT = 128 * 1024;

    /**
     * Bytes a sender asks to send before its first grant (about one BDP).
     *
     * @return the value of {@link #INITIAL_CREDIT_BYTES_PROP_NAME}, or the default when it is not set.
     */
    public static int initialCreditBytes()
    {
        return (int)sizeProperty(INITIAL_CREDIT_BYTES_PROP_NAME, INITIAL_CREDIT_BYTES_DEFAULT, Integer.MAX_VALUE);
    }

    /**
     * Property name of {@link #creditQuantum()}.
     */
    public static final String CREDIT_QUANTUM_PROP_NAME = "metaroce.datapath.credit.quantum";

    /**
     * Default of {@link #creditQuantum()}: bytes per credit grant.
     */
    public static final int CREDIT_QUANTUM_DEFAULT = 64 * 1024;

    /**
     * Bytes per credit grant.
     *
     * @return the value of {@link #CREDIT_QUANTUM_PROP_NAME}, or the default when it is not set.
     */
    public static int creditQuantum()
    {
        return (int)sizeProperty(CREDIT_QUANTUM_PROP_NAME, CREDIT_QUANTUM_DEFAULT, Integer.MAX_VALUE);
    }

    /**
     * Property name of {@link #creditOvercommit()}.
     */
    public static final String CREDIT_OVERCOMMIT_PROP_NAME = "metaroce.datapath.credit.overcommit";

    /**
     * Default of {@link #creditOvercommit()}: receiver grants at its budget times (1 + overcommit).
     */
    public static final double CREDIT_OVERCOMMIT_DEFAULT = 0.25;

    /**
     * Receiver grants at its budget times (1 + overcommit).
     *
     * @return the value of {@link #CREDIT_OVERCOMMIT_PROP_NAME}, or the default when it is not set.
     */
    public static double creditOvercommit()
    {
        return doubleProperty(CREDIT_OVERCOMMIT_PROP_NAME, CREDIT_OVERCOMMIT_DEFAULT);
    }

    /**
     * Property name of {@link #creditRateMbps()}.
     */
    public static final String CREDIT_RATE_MBPS_PROP_NAME = "metaroce.datapath.credit.rate.mbps";

    /**
     * Default of {@link #creditRateMbps()}: receiver credit budget in Mb/s; 0 uses linkRateMbps, and no rate limit when
     * that is 0 too.
     */
    public static final long CREDIT_RATE_MBPS_DEFAULT = 0;

    /**
     * Receiver credit budget in Mb/s; 0 uses linkRateMbps, and no rate limit when that is 0 too.
     *
     * @return the value of {@link #CREDIT_RATE_MBPS_PROP_NAME}, or the default when it is not set.
     */
    public static long creditRateMbps()
    {
        return longProperty(CREDIT_RATE_MBPS_PROP_NAME, CREDIT_RATE_MBPS_DEFAULT);
    }

    /**
     * Property name of {@link #creditWindowBytes()}.
     */
    public static final String CREDIT_WINDOW_BYTES_PROP_NAME = "metaroce.datapath.credit.window";

    /**
     * Default of {@link #creditWindowBytes()}: most granted-but-unreceived bytes over all of a receiver's senders.
     */
    public static final long CREDIT_WINDOW_BYTES_DEFAULT = 1024 * 1024;

    /**
     * Most granted-but-unreceived bytes over all of a receiver's senders.
     *
     * @return the value of {@link #CREDIT_WINDOW_BYTES_PROP_NAME}, or the default when it is not set.
     */
    public static long creditWindowBytes()
    {
        return sizeProperty(CREDIT_WINDOW_BYTES_PROP_NAME, CREDIT_WINDOW_BYTES_DEFAULT, Long.MAX_VALUE);
    }

    /**
     * Property name of {@link #creditHighWatermark()}.
     */
    public static final String CREDIT_HIGH_WATERMARK_PROP_NAME = "metaroce.datapath.credit.high.watermark";

    /**
     * Default of {@link #creditHighWatermark()}: image occupancy (fraction of its window) above which grants freeze and
     * rcvCwndPenalty rises.
     */
    public static final double CREDIT_HIGH_WATERMARK_DEFAULT = 0.75;

    /**
     * Image occupancy (fraction of its window) above which grants freeze and rcvCwndPenalty rises.
     *
     * @return the value of {@link #CREDIT_HIGH_WATERMARK_PROP_NAME}, or the default when it is not set.
     */
    public static double creditHighWatermark()
    {
        return doubleProperty(CREDIT_HIGH_WATERMARK_PROP_NAME, CREDIT_HIGH_WATERMARK_DEFAULT);
    }

    /**
     * Property name of {@link #creditRequestMinNs()}.
     */
    public static final String CREDIT_REQUEST_MIN_NS_PROP_NAME = "metaroce.datapath.credit.request.min";

    /**
     * Default of {@link #creditRequestMinNs()}: lower bound of the CREDIT_REQUEST interval, max(2 x srtt, this).
     */
    public static final long CREDIT_REQUEST_MIN_NS_DEFAULT = TimeUnit.MICROSECONDS.toNanos(100);

    /**
     * Lower bound of the CREDIT_REQUEST interval, max(2 x srtt, this).
     *
     * @return the value of {@link #CREDIT_REQUEST_MIN_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long creditRequestMinNs()
    {
        return durationProperty(CREDIT_REQUEST_MIN_NS_PROP_NAME, CREDIT_REQUEST_MIN_NS_DEFAULT);
    }

    /**
     * Property name of {@link #linkRateMbps()}.
     */
    public static final String LINK_RATE_MBPS_PROP_NAME = "metaroce.datapath.link.rate.mbps";

    /**
     * Default of {@link #linkRateMbps()}: this endpoint's aggregate link rate in Mb/s, 0 when unknown (announced in
     * SETUP and SETUP_ACK).
     */
    public static final long LINK_RATE_MBPS_DEFAULT = 0;

    /**
     * This endpoint's aggregate link rate in Mb/s, 0 when unknown (announced in SETUP and SETUP_ACK).
     *
     * @return the value of {@link #LINK_RATE_MBPS_PROP_NAME}, or the default when it is not set.
     */
    public static long linkRateMbps()
    {
        return longProperty(LINK_RATE_MBPS_PROP_NAME, LINK_RATE_MBPS_DEFAULT);
    }

    /**
     * Property name of {@link #baseRttHintNs()}.
     */
    public static final String BASE_RTT_HINT_NS_PROP_NAME = "metaroce.datapath.base.rtt.hint";

    /**
     * Default of {@link #baseRttHintNs()}: expected unloaded RTT, 0 when unknown (announced in SETUP; sizes the initial
     * window).
     */
    public static final long BASE_RTT_HINT_NS_DEFAULT = 0;

    /**
     * Expected unloaded RTT, 0 when unknown (announced in SETUP; sizes the initial window).
     *
     * @return the value of {@link #BASE_RTT_HINT_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long baseRttHintNs()
    {
        return durationProperty(BASE_RTT_HINT_NS_PROP_NAME, BASE_RTT_HINT_NS_DEFAULT);
    }

    /**
     * Property name of {@link #initialRttNs()}.
     */
    public static final String INITIAL_RTT_NS_PROP_NAME = "metaroce.datapath.initial.rtt";

    /**
     * Default of {@link #initialRttNs()}: RTT assumed before the first sample when no hint is given.
     */
    public static final long INITIAL_RTT_NS_DEFAULT = TimeUnit.MICROSECONDS.toNanos(100);

    /**
     * RTT assumed before the first sample when no hint is given.
     *
     * @return the value of {@link #INITIAL_RTT_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long initialRttNs()
    {
        return durationProperty(INITIAL_RTT_NS_PROP_NAME, INITIAL_RTT_NS_DEFAULT);
    }

    /**
     * Property name of {@link #baseRttWindowNs()}.
     */
    public static final String BASE_RTT_WINDOW_NS_PROP_NAME = "metaroce.datapath.base.rtt.window";

    /**
     * Default of {@link #baseRttWindowNs()}: window of the base-RTT minimum.
     */
    public static final long BASE_RTT_WINDOW_NS_DEFAULT = TimeUnit.SECONDS.toNanos(10);

    /**
     * Window of the base-RTT minimum.
     *
     * @return the value of {@link #BASE_RTT_WINDOW_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long baseRttWindowNs()
    {
        return durationProperty(BASE_RTT_WINDOW_NS_PROP_NAME, BASE_RTT_WINDOW_NS_DEFAULT);
    }

    /**
     * Property name of {@link #ccAdditiveIncrease()}.
     */
    public static final String CC_ADDITIVE_INCREASE_PROP_NAME = "metaroce.datapath.cc.ai";

    /**
     * Default of {@link #ccAdditiveIncrease()}: additive increase in mtu per window of acknowledged bytes.
     */
    public static final double CC_ADDITIVE_INCREASE_DEFAULT = 1.0;

    /**
     * Additive increase in mtu per window of acknowledged bytes.
     *
     * @return the value of {@link #CC_ADDITIVE_INCREASE_PROP_NAME}, or the default when it is not set.
     */
    public static double ccAdditiveIncrease()
    {
        return doubleProperty(CC_ADDITIVE_INCREASE_PROP_NAME, CC_ADDITIVE_INCREASE_DEFAULT);
    }

    /**
     * Property name of {@link #ccBeta()}.
     */
    public static final String CC_BETA_PROP_NAME = "metaroce.datapath.cc.beta";

    /**
     * Default of {@link #ccBeta()}: gain of the delay-based multiplicative decrease.
     */
    public static final double CC_BETA_DEFAULT = 0.8;

    /**
     * Gain of the delay-based multiplicative decrease.
     *
     * @return the value of {@link #CC_BETA_PROP_NAME}, or the default when it is not set.
     */
    public static double ccBeta()
    {
        return doubleProperty(CC_BETA_PROP_NAME, CC_BETA_DEFAULT);
    }

    /**
     * Property name of {@link #ccMaxMdf()}.
     */
    public static final String CC_MAX_MDF_PROP_NAME = "metaroce.datapath.cc.max.mdf";

    /**
     * Default of {@link #ccMaxMdf()}: largest multiplicative decrease.
     */
    public static final double CC_MAX_MDF_DEFAULT = 0.5;

    /**
     * Largest multiplicative decrease.
     *
     * @return the value of {@link #CC_MAX_MDF_PROP_NAME}, or the default when it is not set.
     */
    public static double ccMaxMdf()
    {
        return doubleProperty(CC_MAX_MDF_PROP_NAME, CC_MAX_MDF_DEFAULT);
    }

    /**
     * Property name of {@link #ccSlackNs()}.
     */
    public static final String CC_SLACK_NS_PROP_NAME = "metaroce.datapath.cc.slack";

    /**
     * Default of {@link #ccSlackNs()}: fixed part of the delay target above base RTT (wire specification, section
     * 13.1).
     */
    public static final long CC_SLACK_NS_DEFAULT = TimeUnit.MICROSECONDS.toNanos(25);

    /**
     * Fixed part of the delay target above base RTT (wire specification, section 13.1).
     *
     * @return the value of {@link #CC_SLACK_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long ccSlackNs()
    {
        return durationProperty(CC_SLACK_NS_PROP_NAME, CC_SLACK_NS_DEFAULT);
    }

    /**
     * Property name of {@link #pacingGain()}.
     */
    public static final String PACING_GAIN_PROP_NAME = "metaroce.datapath.pacing.gain";

    /**
     * Default of {@link #pacingGain()}: pacing rate as a multiple of cwnd / srtt after start-up (2 in start-up; AIMD
     * paces only while {@code cwnd < 4 x mtu}).
     */
    public static final double PACING_GAIN_DEFAULT = 1.25;

    /**
     * Pacing rate as a multiple of cwnd / srtt after start-up (2 in start-up; AIMD paces only while
     * {@code cwnd < 4 x mtu}).
     *
     * @return the value of {@link #PACING_GAIN_PROP_NAME}, or the default when it is not set.
     */
    public static double pacingGain()
    {
        return doubleProperty(PACING_GAIN_PROP_NAME, PACING_GAIN_DEFAULT);
    }

    /**
     * Property name of {@link #setupRetryMinNs()}.
     */
    public static final String SETUP_RETRY_MIN_NS_PROP_NAME = "metaroce.datapath.setup.retry.min";

    /**
     * Default of {@link #setupRetryMinNs()}: first SETUP retry delay, doubling.
     */
    public static final long SETUP_RETRY_MIN_NS_DEFAULT = TimeUnit.MILLISECONDS.toNanos(10);

    /**
     * First SETUP retry delay, doubling.
     *
     * @return the value of {@link #SETUP_RETRY_MIN_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long setupRetryMinNs()
    {
        return durationProperty(SETUP_RETRY_MIN_NS_PROP_NAME, SETUP_RETRY_MIN_NS_DEFAULT);
    }

    /**
     * Property name of {@link #setupRetryMaxNs()}.
     */
    public static final String SETUP_RETRY_MAX_NS_PROP_NAME = "metaroce.datapath.setup.retry.max";

    /**
     * Default of {@link #setupRetryMaxNs()}: cap of the SETUP retry delay.
     */
    public static final long SETUP_RETRY_MAX_NS_DEFAULT = TimeUnit.SECONDS.toNanos(1);

    /**
     * Cap of the SETUP retry delay.
     *
     * @return the value of {@link #SETUP_RETRY_MAX_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long setupRetryMaxNs()
    {
        return durationProperty(SETUP_RETRY_MAX_NS_PROP_NAME, SETUP_RETRY_MAX_NS_DEFAULT);
    }

    /**
     * Property name of {@link #keepaliveIntervalNs()}.
     */
    public static final String KEEPALIVE_INTERVAL_NS_PROP_NAME = "metaroce.datapath.keepalive.interval";

    /**
     * Default of {@link #keepaliveIntervalNs()}: a sender with nothing to send probes (KEEPALIVE) this often.
     */
    public static final long KEEPALIVE_INTERVAL_NS_DEFAULT = TimeUnit.MILLISECONDS.toNanos(100);

    /**
     * A sender with nothing to send probes (KEEPALIVE) this often.
     *
     * @return the value of {@link #KEEPALIVE_INTERVAL_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long keepaliveIntervalNs()
    {
        return durationProperty(KEEPALIVE_INTERVAL_NS_PROP_NAME, KEEPALIVE_INTERVAL_NS_DEFAULT);
    }

    /**
     * Property name of {@link #statusIntervalNs()}.
     */
    public static final String STATUS_INTERVAL_NS_PROP_NAME = "metaroce.datapath.status.interval";

    /**
     * Default of {@link #statusIntervalNs()}: period of STATUS telemetry from both ends.
     */
    public static final long STATUS_INTERVAL_NS_DEFAULT = TimeUnit.MILLISECONDS.toNanos(100);

    /**
     * Period of STATUS telemetry from both ends.
     *
     * @return the value of {@link #STATUS_INTERVAL_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long statusIntervalNs()
    {
        return durationProperty(STATUS_INTERVAL_NS_PROP_NAME, STATUS_INTERVAL_NS_DEFAULT);
    }

    /**
     * Property name of {@link #connectionTimeoutNs()}.
     */
    public static final String CONNECTION_TIMEOUT_NS_PROP_NAME = "metaroce.datapath.connection.timeout";

    /**
     * Default of {@link #connectionTimeoutNs()}: silence from the peer after which a connection fails (sender) or
     * closes (receiver).
     */
    public static final long CONNECTION_TIMEOUT_NS_DEFAULT = TimeUnit.SECONDS.toNanos(5);

    /**
     * Silence from the peer after which a connection fails (sender) or closes (receiver).
     *
     * @return the value of {@link #CONNECTION_TIMEOUT_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long connectionTimeoutNs()
    {
        return durationProperty(CONNECTION_TIMEOUT_NS_PROP_NAME, CONNECTION_TIMEOUT_NS_DEFAULT);
    }

    /**
     * Property name of {@link #lingerTimeoutNs()}.
     */
    public static final String LINGER_TIMEOUT_NS_PROP_NAME = "metaroce.datapath.linger.timeout";

    /**
     * Default of {@link #lingerTimeoutNs()}: how long a closing sender waits for its data to be acknowledged, and a
     * closed receiver answers duplicate CLOSEs.
     */
    public static final long LINGER_TIMEOUT_NS_DEFAULT = TimeUnit.SECONDS.toNanos(5);

    /**
     * How long a closing sender waits for its data to be acknowledged, and a closed receiver answers duplicate CLOSEs.
     *
     * @return the value of {@link #LINGER_TIMEOUT_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long lingerTimeoutNs()
    {
        return durationProperty(LINGER_TIMEOUT_NS_PROP_NAME, LINGER_TIMEOUT_NS_DEFAULT);
    }

    /**
     * Property name of {@link #closeRetries()}.
     */
    public static final String CLOSE_RETRIES_PROP_NAME = "metaroce.datapath.close.retries";

    /**
     * Default of {@link #closeRetries()}: CLOSE transmissions before a sender gives up waiting for CLOSE_ACK.
     */
    public static final int CLOSE_RETRIES_DEFAULT = 8;

    /**
     * CLOSE transmissions before a sender gives up waiting for CLOSE_ACK.
     *
     * @return the value of {@link #CLOSE_RETRIES_PROP_NAME}, or the default when it is not set.
     */
    public static int closeRetries()
    {
        return intProperty(CLOSE_RETRIES_PROP_NAME, CLOSE_RETRIES_DEFAULT);
    }

    /**
     * Property name of {@link #closeRetryMinNs()}.
     */
    public static final String CLOSE_RETRY_MIN_NS_PROP_NAME = "metaroce.datapath.close.retry.min";

    /**
     * Default of {@link #closeRetryMinNs()}: lower bound of the first CLOSE retry delay, max(RTO, this), doubling.
     */
    public static final long CLOSE_RETRY_MIN_NS_DEFAULT = TimeUnit.MILLISECONDS.toNanos(10);

    /**
     * Lower bound of the first CLOSE retry delay, max(RTO, this), doubling.
     *
     * @return the value of {@link #CLOSE_RETRY_MIN_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long closeRetryMinNs()
    {
        return durationProperty(CLOSE_RETRY_MIN_NS_PROP_NAME, CLOSE_RETRY_MIN_NS_DEFAULT);
    }

    /**
     * Property name of {@link #nackIntervalNs()}.
     */
    public static final String NACK_INTERVAL_NS_PROP_NAME = "metaroce.datapath.nack.interval";

    /**
     * Default of {@link #nackIntervalNs()}: receiver RTT estimate: at most one NACK per PSN per interval, and the
     * ceiling of the hole timer before INFERRED_LOSS, which follows the reordering the receiver measures.
     */
    public static final long NACK_INTERVAL_NS_DEFAULT = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * Receiver RTT estimate: at most one NACK per PSN per interval, and the ceiling of the hole timer before
     * INFERRED_LOSS, which follows the reordering the receiver measures.
     *
     * @return the value of {@link #NACK_INTERVAL_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long nackIntervalNs()
    {
        return durationProperty(NACK_INTERVAL_NS_PROP_NAME, NACK_INTERVAL_NS_DEFAULT);
    }

    /**
     * Property name of {@link #rejectReplyRate()}.
     */
    public static final String REJECT_REPLY_RATE_PROP_NAME = "metaroce.datapath.reject.reply.rate";

    /**
     * Default of {@link #rejectReplyRate()}: one answer is enough to fail a stale connection, so a hundred a second
     * covers a restart that strands many connections while keeping a flood's reflection small.
     */
    public static final int REJECT_REPLY_RATE_DEFAULT = 100;

    /**
     * Most answers per second, over every peer, to packets of unknown connections (NACK(NO_CONNECTION),
     * NACK(EPOCH_MISMATCH)) and ERRORs answering SETUP.
     *
     * @return the value of {@link #REJECT_REPLY_RATE_PROP_NAME}, or the default when it is not set.
     */
    public static int rejectReplyRate()
    {
        return intProperty(REJECT_REPLY_RATE_PROP_NAME, REJECT_REPLY_RATE_DEFAULT);
    }

    /**
     * Property name of {@link #rejectReplyBurst()}.
     */
    public static final String REJECT_REPLY_BURST_PROP_NAME = "metaroce.datapath.reject.reply.burst";

    /**
     * Default of {@link #rejectReplyBurst()}.
     */
    public static final int REJECT_REPLY_BURST_DEFAULT = 10;

    /**
     * Answers to packets of unknown connections that may go back to back before {@link #rejectReplyRate()} applies.
     *
     * @return the value of {@link #REJECT_REPLY_BURST_PROP_NAME}, or the default when it is not set.
     */
    public static int rejectReplyBurst()
    {
        return intProperty(REJECT_REPLY_BURST_PROP_NAME, REJECT_REPLY_BURST_DEFAULT);
    }

    /**
     * Property name of {@link #retryAfterNs()}.
     */
    public static final String RETRY_AFTER_NS_PROP_NAME = "metaroce.datapath.retry.after";

    /**
     * Default of {@link #retryAfterNs()}: delay a receiver asks for in NACK RX_OVERFLOW before the sender retransmits.
     */
    public static final long RETRY_AFTER_NS_DEFAULT = TimeUnit.MICROSECONDS.toNanos(200);

    /**
     * Delay a receiver asks for in NACK RX_OVERFLOW before the sender retransmits.
     *
     * @return the value of {@link #RETRY_AFTER_NS_PROP_NAME}, or the default when it is not set.
     */
    public static long retryAfterNs()
    {
        return durationProperty(RETRY_AFTER_NS_PROP_NAME, RETRY_AFTER_NS_DEFAULT);
    }

    /**
     * Property name of {@link #maxConnectionsPerSource()}.
     */
    public static final String MAX_CONNECTIONS_PER_SOURCE_PROP_NAME = "metaroce.datapath.max.connections.per.source";

    /**
     * Default of {@link #maxConnectionsPerSource()}: a sending driver needs one connection per pair of send and
     * receive endpoints and connection settings, a handful in practice; 64 leaves room for many channels.
     */
    public static final int MAX_CONNECTIONS_PER_SOURCE_DEFAULT = 64;

    /**
     * Most receiver connections one source host (address, any port) may hold on an engine, live or lingering; a SETUP
     * beyond them is answered ERROR(RESOURCE_EXHAUSTED) and counted as {@link DropReason#PEER_CONNECTIONS}.
     *
     * @return the value of {@link #MAX_CONNECTIONS_PER_SOURCE_PROP_NAME}, or the default when it is not set.
     */
    public static int maxConnectionsPerSource()
    {
        return intProperty(MAX_CONNECTIONS_PER_SOURCE_PROP_NAME, MAX_CONNECTIONS_PER_SOURCE_DEFAULT);
    }

    /**
     * Property name of {@link #maxUnprovedConnections()}.
     */
    public static final String MAX_UNPROVED_CONNECTIONS_PROP_NAME = "metaroce.datapath.max.unproved.connections";

    /**
     * Default of {@link #maxUnprovedConnections()}: a real sender proves its address within a round trip of its
     * SETUP_ACK, so few are ever unproved at once.
     */
    public static final int MAX_UNPROVED_CONNECTIONS_DEFAULT = 256;

    /**
     * Most receiver connections of an engine whose sender has not yet proved that it receives at its address (no
     * datagram of theirs passed the epoch rule, section 18.4): a SETUP beyond them evicts the oldest, which sources
     * that forge their address would otherwise fill.
     *
     * @return the value of {@link #MAX_UNPROVED_CONNECTIONS_PROP_NAME}, or the default when it is not set.
     */
    public static int maxUnprovedConnections()
    {
        return intProperty(MAX_UNPROVED_CONNECTIONS_PROP_NAME, MAX_UNPROVED_CONNECTIONS_DEFAULT);
    }

    /**
     * Property name of {@link #maxStreamsPerConnection()}.
     */
    public static final String MAX_STREAMS_PER_CONNECTION_PROP_NAME = "metaroce.datapath.max.streams.per.connection";

    /**
     * Default of {@link #maxStreamsPerConnection()}: 4,096 streams between two drivers, which the default counters
     * file holds.
     */
    public static final int MAX_STREAMS_PER_CONNECTION_DEFAULT = 4096;

    /**
     * Most streams a receiver keeps opening or open on one connection, announced as maxStreams in SETUP_ACK (lowered
     * to what the counters file can hold); a STREAM_OPEN beyond it is answered STREAM_ACK(RESOURCE_EXHAUSTED).
     *
     * @return the value of {@link #MAX_STREAMS_PER_CONNECTION_PROP_NAME}, or the default when it is not set.
     */
    public static int maxStreamsPerConnection()
    {
        return intProperty(MAX_STREAMS_PER_CONNECTION_PROP_NAME, MAX_STREAMS_PER_CONNECTION_DEFAULT);
    }

    /**
     * Property name of {@link #maxStreamsPerSource()}.
     */
    public static final String MAX_STREAMS_PER_SOURCE_PROP_NAME = "metaroce.datapath.max.streams.per.source";

    /**
     * Default of {@link #maxStreamsPerSource()}.
     */
    public static final int MAX_STREAMS_PER_SOURCE_DEFAULT = 4096;

    /**
     * Most streams one source host may keep opening or open over all its connections to an engine.
     *
     * @return the value of {@link #MAX_STREAMS_PER_SOURCE_PROP_NAME}, or the default when it is not set.
     */
    public static int maxStreamsPerSource()
    {
        return intProperty(MAX_STREAMS_PER_SOURCE_PROP_NAME, MAX_STREAMS_PER_SOURCE_DEFAULT);
    }

    /**
     * Property name of {@link #maxTermLength()}.
     */
    public static final String MAX_TERM_LENGTH_PROP_NAME = "metaroce.datapath.max.term.length";

    /**
     * Default of {@link #maxTermLength()}: 64 MiB, an image of 192 MiB.
     */
    public static final int MAX_TERM_LENGTH_DEFAULT = 64 * 1024 * 1024;

    /**
     * Longest term of a stream a receiver opens: its image holds three terms. A STREAM_OPEN with a longer one is
     * answered STREAM_ACK(RESOURCE_EXHAUSTED).
     *
     * @return the value of {@link #MAX_TERM_LENGTH_PROP_NAME}, or the default when it is not set.
     */
    public static int maxTermLength()
    {
        return (int)sizeProperty(MAX_TERM_LENGTH_PROP_NAME, MAX_TERM_LENGTH_DEFAULT, 1L << 30);
    }

    /**
     * Property name of {@link #maxImageBytesPerConnection()}.
     */
    public static final String MAX_IMAGE_BYTES_PER_CONNECTION_PROP_NAME =
        "metaroce.datapath.max.image.bytes.per.connection";

    /**
     * Default of {@link #maxImageBytesPerConnection()}: 1 GiB.
     */
    public static final long MAX_IMAGE_BYTES_PER_CONNECTION_DEFAULT = 1L << 30;

    /**
     * Most image bytes (three terms per stream opening or open) one connection may make a receiver hold; a
     * STREAM_OPEN beyond it is answered STREAM_ACK(RESOURCE_EXHAUSTED).
     *
     * @return the value of {@link #MAX_IMAGE_BYTES_PER_CONNECTION_PROP_NAME}, or the default when it is not set.
     */
    public static long maxImageBytesPerConnection()
    {
        return sizeProperty(MAX_IMAGE_BYTES_PER_CONNECTION_PROP_NAME, MAX_IMAGE_BYTES_PER_CONNECTION_DEFAULT,
            Long.MAX_VALUE);
    }

    /**
     * Property name of {@link #maxImageBytesPerSource()}.
     */
    public static final String MAX_IMAGE_BYTES_PER_SOURCE_PROP_NAME = "metaroce.datapath.max.image.bytes.per.source";

    /**
     * Default of {@link #maxImageBytesPerSource()}: 2 GiB.
     */
    public static final long MAX_IMAGE_BYTES_PER_SOURCE_DEFAULT = 2L << 30;

    /**
     * Most image bytes (three terms per stream opening or open) one source host may make a receiver hold over all its
     * connections.
     *
     * @return the value of {@link #MAX_IMAGE_BYTES_PER_SOURCE_PROP_NAME}, or the default when it is not set.
     */
    public static long maxImageBytesPerSource()
    {
        return sizeProperty(MAX_IMAGE_BYTES_PER_SOURCE_PROP_NAME, MAX_IMAGE_BYTES_PER_SOURCE_DEFAULT, Long.MAX_VALUE);
    }

    /**
     * Property name of {@link #countersReserve()}.
     */
    public static final String COUNTERS_RESERVE_PROP_NAME = "metaroce.datapath.counters.reserve";

    /**
     * Default of {@link #countersReserve()}: room for about 250 local publications after remote peers took the rest.
     */
    public static final int COUNTERS_RESERVE_DEFAULT = 1024;

    /**
     * Counters of the engine's counters file that remote peers may never take: a SETUP or STREAM_OPEN that would
     * need counters when fewer than these are free is refused (RESOURCE_EXHAUSTED), so local clients can still add
     * publications and subscriptions. At most an eighth of the counters file is kept, whatever the setting.
     *
     * @return the value of {@link #COUNTERS_RESERVE_PROP_NAME}, or the default when it is not set.
     */
    public static int countersReserve()
    {
        return intProperty(COUNTERS_RESERVE_PROP_NAME, COUNTERS_RESERVE_DEFAULT);
    }

    /**
     * Property name of {@link #pollLimit()}.
     */
    public static final String POLL_LIMIT_PROP_NAME = "metaroce.datapath.poll.limit";

    /**
     * Default of {@link #pollLimit()}: datagrams received per poll.
     */
    public static final int POLL_LIMIT_DEFAULT = 64;

    /**
     * Datagrams received per poll.
     *
     * @return the value of {@link #POLL_LIMIT_PROP_NAME}, or the default when it is not set.
     */
    public static int pollLimit()
    {
        return intProperty(POLL_LIMIT_PROP_NAME, POLL_LIMIT_DEFAULT);
    }

    /**
     * Property name of {@link #sendBurst()}.
     */
    public static final String SEND_BURST_PROP_NAME = "metaroce.datapath.send.burst";

    /**
     * Default of {@link #sendBurst()}: DATA packets one connection may send per send call.
     */
    public static final int SEND_BURST_DEFAULT = 64;

    /**
     * DATA packets one connection may send per send call.
     *
     * @return the value of {@link #SEND_BURST_PROP_NAME}, or the default when it is not set.
     */
    public static int sendBurst()
    {
        return intProperty(SEND_BURST_PROP_NAME, SEND_BURST_DEFAULT);
    }

    private static String value(final String name)
    {
        final String value = System.getProperty(name);
        return null == value ? null : value.trim();
    }

    /**
     * A setting's value as its property gave it when the property's text denotes that value ({@code 64k} for
     * 65536, {@code 5ms} for 5000000, {@code 2} for 2.0), so that a message shows what was written; otherwise the
     * value itself, as code set it.
     *
     * @param name  of the property.
     * @param value of the setting.
     * @return the text for a message.
     */
    static String asGiven(final String name, final Object value)
    {
        final String text = value(name);
        if (null == text || text.equals(String.valueOf(value)) || !(value instanceof Number number))
        {
            return String.valueOf(value);
        }

        try
        {
            if (Double.parseDouble(text) == number.doubleValue())
            {
                return text;
            }
        }
        catch (final NumberFormatException ignore)
        {
            // not a plain number: a size or a duration
        }

        final boolean isIntegral = !(number instanceof Double || number instanceof Float);
        try
        {
            if (isIntegral && SystemUtil.parseSize(name, text) == number.longValue())
            {
                return text;
            }
        }
        catch (final RuntimeException ignore)
        {
            // not a size
        }

        try
        {
            if (isIntegral && SystemUtil.parseDuration(name, text) == number.longValue())
            {
                return text;
            }
        }
        catch (final RuntimeException ignore)
        {
            // not a duration either: code set the value
        }

        return String.valueOf(value);
    }

    private static int intProperty(final String name, final int defaultValue)
    {
        final String value = value(name);
        try
        {
            return null == value ? defaultValue : Integer.parseInt(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(name + " must be an integer: " + value);
        }
    }

    private static long longProperty(final String name, final long defaultValue)
    {
        final String value = value(name);
        try
        {
            return null == value ? defaultValue : Long.parseLong(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(name + " must be an integer: " + value);
        }
    }

    private static double doubleProperty(final String name, final double defaultValue)
    {
        final String value = value(name);
        try
        {
            return null == value ? defaultValue : Double.parseDouble(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(name + " must be a number such as 0.5: " + value);
        }
    }

    private static boolean booleanProperty(final String name, final boolean defaultValue)
    {
        final String value = value(name);
        if (null == value)
        {
            return defaultValue;
        }
        // Boolean.parseBoolean would take a misspelled "ture" for false.
        if ("true".equalsIgnoreCase(value) || "false".equalsIgnoreCase(value))
        {
            return Boolean.parseBoolean(value);
        }
        throw new IllegalArgumentException(name + " must be true or false: " + value);
    }

    private static long durationProperty(final String name, final long defaultValueNs)
    {
        final String value = value(name);
        try
        {
            return null == value ? defaultValueNs : SystemUtil.parseDuration(name, value);
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException(name + " must be a duration such as 250us, 10ms or 5s: " + value);
        }
    }

    private static long sizeProperty(final String name, final long defaultValue, final long max)
    {
        final String value = value(name);
        try
        {
            final long size = null == value ? defaultValue : SystemUtil.parseSize(name, value);
            if (size > max)
            {
                throw new IllegalArgumentException("too large");
            }
            return size;
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException(name + " must be a size such as 1408, 64k or 1m: " + value);
        }
    }
}
