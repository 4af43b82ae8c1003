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
package io.metaroce.datapath.path;

/**
 * The tunables of path health, fixed for a connection: when a path becomes SUSPECT, how it is probed, when it is
 * EVICTED and re-admitted, and how many paths may be out of service at once.
 */
public final class PathHealthPolicy
{
    private final boolean evictionEnabled;
    private final double maxEvictFraction;
    private final int lossWindowSrtts;
    private final int probesBeforeEviction;
    private final long probeIntervalMinNs;
    private final long reprobeMinNs;
    private final long reprobeMaxNs;
    private final int readmissionProbeAcks;
    private final int rttOutlierFactor;
    private final double planeDownFraction;

    /**
     * Build a policy.
     *
     * @param evictionEnabled      false keeps every path ACTIVE (fabrics with adaptive routing).
     * @param maxEvictFraction     most paths that may be SUSPECT or EVICTED together, as a fraction in [0, 1).
     * @param lossWindowSrtts      two attributed losses within this many srtt make a path SUSPECT.
     * @param probesBeforeEviction unanswered probes after which a SUSPECT path is EVICTED.
     * @param probeIntervalMinNs   a SUSPECT path is probed every max(srtt, this).
     * @param reprobeMinNs         first re-probe delay of an EVICTED path; doubles while unanswered.
     * @param reprobeMaxNs         cap of the re-probe delay.
     * @param readmissionProbeAcks consecutive PROBE_ACKs that re-admit an EVICTED path.
     * @param rttOutlierFactor     a path whose srtt exceeds this many times the median path srtt becomes SUSPECT.
     * @param planeDownFraction    a plane is reported DOWN when at least this fraction of its paths is EVICTED.
     */
    public PathHealthPolicy(
        final boolean evictionEnabled,
        final double maxEvictFraction,
        final int lossWindowSrtts,
        final int probesBeforeEviction,
        final long probeIntervalMinNs,
        final long reprobeMinNs,
        final long reprobeMaxNs,
        final int readmissionProbeAcks,
        final int rttOutlierFactor,
        final double planeDownFraction)
    {
        if (maxEvictFraction < 0.0 || maxEvictFraction >= 1.0)
        {
            throw new IllegalArgumentException("maxEvictFraction must be in [0, 1): " + maxEvictFraction);
        }
        if (lossWindowSrtts < 1 || probesBeforeEviction < 1 || readmissionProbeAcks < 1 || rttOutlierFactor < 2)
        {
            throw new IllegalArgumentException("path health counts must be positive (rttOutlierFactor >= 2)");
        }
        if (probeIntervalMinNs <= 0 || reprobeMinNs <= 0 || reprobeMaxNs < reprobeMinNs)
        {
            throw new IllegalArgumentException("probe intervals must be positive and reprobeMax >= reprobeMin");
        }
        if (planeDownFraction <= 0.0 || planeDownFraction > 1.0)
        {
            throw new IllegalArgumentException("planeDownFraction must be in (0, 1]: " + planeDownFraction);
        }

        this.evictionEnabled = evictionEnabled;
        this.maxEvictFraction = maxEvictFraction;
        this.lossWindowSrtts = lossWindowSrtts;
        this.probesBeforeEviction = probesBeforeEviction;
        this.probeIntervalMinNs = probeIntervalMinNs;
        this.reprobeMinNs = reprobeMinNs;
        this.reprobeMaxNs = reprobeMaxNs;
        this.readmissionProbeAcks = readmissionProbeAcks;
        this.rttOutlierFactor = rttOutlierFactor;
        this.planeDownFraction = planeDownFraction;
    }

    /**
     * Whether paths may leave ACTIVE at all.
     *
     * @return false when eviction is switched off.
     */
    public boolean evictionEnabled()
    {
        return evictionEnabled;
    }

    /**
     * Most paths that may be SUSPECT or EVICTED together, as a fraction of the paths.
     *
     * @return the fraction.
     */
    public double maxEvictFraction()
    {
        return maxEvictFraction;
    }

    /**
     * Window, in srtt, within which two attributed losses make a path SUSPECT.
     *
     * @return the multiple of srtt.
     */
    public int lossWindowSrtts()
    {
        return lossWindowSrtts;
    }

    /**
     * Unanswered probes after which a SUSPECT path is EVICTED.
     *
     * @return the count.
     */
    public int probesBeforeEviction()
    {
        return probesBeforeEviction;
    }

    /**
     * Lower bound of the probe interval of a SUSPECT path.
     *
     * @return nanoseconds.
     */
    public long probeIntervalMinNs()
    {
        return probeIntervalMinNs;
    }

    /**
     * First re-probe delay of an EVICTED path.
     *
     * @return nanoseconds.
     */
    public long reprobeMinNs()
    {
        return reprobeMinNs;
    }

    /**
     * Cap of the re-probe delay of an EVICTED path.
     *
     * @return nanoseconds.
     */
    public long reprobeMaxNs()
    {
        return reprobeMaxNs;
    }

    /**
     * Consecutive PROBE_ACKs that re-admit an EVICTED path.
     *
     * @return the count.
     */
    public int readmissionProbeAcks()
    {
        return readmissionProbeAcks;
    }

    /**
     * Multiple of the median path srtt above which a path becomes SUSPECT.
     *
     * @return the factor.
     */
    public int rttOutlierFactor()
    {
        return rttOutlierFactor;
    }

    /**
     * Fraction of EVICTED paths at which a plane is reported DOWN.
     *
     * @return the fraction.
     */
    public double planeDownFraction()
    {
        return planeDownFraction;
    }
}
