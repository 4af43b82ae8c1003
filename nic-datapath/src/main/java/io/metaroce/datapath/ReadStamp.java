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
package io.metaroce.datapath;

/**
 * When the datagram being handled was taken from its socket, for the service time an ACK or a probe's answer reports
 * (MR-ACK-4): the start of the read of its socket group, restarted where the handling of one datagram of that read
 * took longer than any datagram's handling but a handshake's.
 * <p>
 * A read of a group takes a batch of datagrams in several receive calls and handles each before the next call; a
 * stamp from the start of the read covers the handling of the batch ahead of a trigger, which the sender must not
 * count as path, and a stamp from the handling itself would shorten the sample. A long handling (a stream's image
 * created, a handshake) or a descheduled thread in the middle of the read means later datagrams may have been read
 * after it, and a stamp from before it would overstate their service time, understate the sender's RTT sample and
 * lower its base RTT for a whole base window.
 * <p>
 * Not thread-safe: the engine's duty-cycle thread.
 */
final class ReadStamp
{
    /**
     * A gap between the handling of two datagrams of one read longer than any datagram's handling but a handshake's.
     */
    static final long READ_GAP_NS = 50_000;

    private static final long NOT_READING = Long.MIN_VALUE;

    private long readNs = NOT_READING;
    private long lastDatagramNs;

    /**
     * A read of a group starts.
     *
     * @param nowNs the time.
     */
    void start(final long nowNs)
    {
        readNs = nowNs;
        lastDatagramNs = nowNs;
    }

    /**
     * A datagram of the read is about to be handled.
     *
     * @param nowNs the time its handling starts.
     */
    void onDatagram(final long nowNs)
    {
        if (NOT_READING != readNs && nowNs - lastDatagramNs > READ_GAP_NS)
        {
            readNs = nowNs;
        }
        lastDatagramNs = nowNs;
    }

    /**
     * The read has ended: datagrams handled from now on (none are, but a timer's) were read now.
     */
    void end()
    {
        readNs = NOT_READING;
    }

    /**
     * When the datagram being handled was read.
     *
     * @param nowNs the time now.
     * @return the read's stamp, never after now, or now when no read is under way.
     */
    long readNs(final long nowNs)
    {
        return NOT_READING == readNs ? nowNs : Math.min(readNs, nowNs);
    }
}
