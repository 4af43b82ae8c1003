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
package io.metaroce.systemtest.network;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * The network-transport counters of one stream in a driver's counters file, summed over the connections that carry
 * it: per plane the DATA packets and retransmissions its sender paths carried ({@code path-packets},
 * {@code path-retransmits}), the sender connection's totals and state ({@code snd-data-packets},
 * {@code snd-retransmits}, {@code snd-planes-down}, {@code snd-paths-active}, {@code snd-cwnd},
 * {@code snd-inflight-bytes}, {@code snd-grant-limit}, {@code snd-srtt-ns}) and the receiver connection's
 * ({@code rcv-data-packets}, {@code rcv-duplicates}, {@code rcv-out-of-order}, {@code rcv-data-dropped}).
 * <p>
 * A connection carries every stream between two drivers (wire version 2): its counters name the connection
 * ({@code conn=<id>}), not a stream. The stream's own state counters ({@code snd-stream-state},
 * {@code rcv-stream-state}, labelled {@code conn=<id> stream=<id> session=<id>}) say which connections carry it, and
 * the connection counters of those are summed; a connection that carries other streams too counts their traffic as
 * well.
 * <p>
 * A connection's counters are freed when it ends, so a value sampled later can be smaller than an earlier one; the
 * {@code max...} readings keep the largest seen, which is what a stream that kept one connection carried. Sampling
 * scans the labels of every counter (and allocates them): call it at reporting intervals, never per message.
 * Not thread safe.
 */
public final class StreamCounters
{
    private final CountersReader counters;
    private final String streamToken;
    private final Set<String> connections = new HashSet<>();
    private final CountersReader.MetaData connectionFinder = this::onStreamCounter;
    private final long[] planePackets;
    private final long[] planeRetransmits;
    private final long[] maxPlanePackets;
    private final long[] maxPlaneRetransmits;
    private final CountersReader.MetaData sampler = this::onCounter;
    private final StringBuilder reasons = new StringBuilder();
    private long sendPackets;
    private long sendRetransmits;
    private long planesDown;
    private long cwnd;
    private long inflight;
    private long grantLimit;
    private long srttNs;
    private long pathsActive;
    private long receivePackets;
    private long duplicates;
    private long outOfOrder;
    private long receiveDropped;
    private long maxSendPackets;
    private long maxSendRetransmits;
    private long maxReceivePackets;
    private long maxDuplicates;
    private long maxOutOfOrder;
    private long maxReceiveDropped;

    /**
     * Counters of one stream.
     *
     * @param counters of the driver.
     * @param streamId of the stream.
     * @param planes   of the stream's channel.
     */
    public StreamCounters(final CountersReader counters, final int streamId, final int planes)
    {
        this.counters = counters;
        this.streamToken = " stream=" + streamId + " ";
        this.planePackets = new long[planes];
        this.planeRetransmits = new long[planes];
        this.maxPlanePackets = new long[planes];
        this.maxPlaneRetransmits = new long[planes];
    }

    /**
     * Read the counters now.
     */
    public void sample()
    {
        Arrays.fill(planePackets, 0);
        Arrays.fill(planeRetransmits, 0);
        sendPackets = 0;
        sendRetransmits = 0;
        planesDown = 0;
        cwnd = 0;
        inflight = 0;
        grantLimit = 0;
        srttNs = 0;
        pathsActive = 0;
        receivePackets = 0;
        duplicates = 0;
        outOfOrder = 0;
        receiveDropped = 0;
        reasons.setLength(0);
        connections.clear();
        counters.forEach(connectionFinder);
        counters.forEach(sampler);
        for (int plane = 0; plane < planePackets.length; plane++)
        {
            maxPlanePackets[plane] = Math.max(maxPlanePackets[plane], planePackets[plane]);
            maxPlaneRetransmits[plane] = Math.max(maxPlaneRetransmits[plane], planeRetransmits[plane]);
        }
        maxSendPackets = Math.max(maxSendPackets, sendPackets);
        maxSendRetransmits = Math.max(maxSendRetransmits, sendRetransmits);
        maxReceivePackets = Math.max(maxReceivePackets, receivePackets);
        maxDuplicates = Math.max(maxDuplicates, duplicates);
        maxOutOfOrder = Math.max(maxOutOfOrder, outOfOrder);
        maxReceiveDropped = Math.max(maxReceiveDropped, receiveDropped);
    }

    /**
     * Append the sender side as {@code key=value} pairs: {@code planeN_packets}, {@code planeN_retransmits},
     * {@code snd_packets}, {@code snd_retransmits} (largest seen), and from the latest sample the connection's state:
     * {@code planes_down}, {@code paths_active}, {@code cwnd}, {@code inflight} (bytes), {@code grant_limit}
     * and {@code srtt_us}.
     *
     * @param line to append to.
     * @return the line.
     */
    public StringBuilder appendSender(final StringBuilder line)
    {
        for (int plane = 0; plane < planePackets.length; plane++)
        {
            line.append(" plane").append(plane).append("_packets=").append(maxPlanePackets[plane])
                .append(" plane").append(plane).append("_retransmits=").append(maxPlaneRetransmits[plane]);
        }

        return line.append(" snd_packets=").append(maxSendPackets)
            .append(" snd_retransmits=").append(maxSendRetransmits)
            .append(" planes_down=").append(planesDown)
            .append(" paths_active=").append(pathsActive)
            .append(" cwnd=").append(cwnd)
            .append(" inflight=").append(inflight)
            .append(" grant_limit=").append(grantLimit)
            .append(" srtt_us=").append(srttNs / 1000);
    }

    /**
     * Append the receiver side as {@code key=value} pairs (largest seen): {@code rcv_packets},
     * {@code rcv_duplicates}, {@code rcv_out_of_order}, {@code rcv_dropped}.
     *
     * @param line to append to.
     * @return the line.
     */
    public StringBuilder appendReceiver(final StringBuilder line)
    {
        return line.append(" rcv_packets=").append(maxReceivePackets)
            .append(" rcv_duplicates=").append(maxDuplicates)
            .append(" rcv_out_of_order=").append(maxOutOfOrder)
            .append(" rcv_dropped=").append(maxReceiveDropped);
    }

    /**
     * DATA packets sent on a plane, largest seen.
     *
     * @param plane the plane.
     * @return packets, retransmissions included.
     */
    public long planePackets(final int plane)
    {
        return maxPlanePackets[plane];
    }

    /**
     * Retransmissions sent on a plane, largest seen.
     *
     * @param plane the plane.
     * @return retransmitted packets.
     */
    public long planeRetransmits(final int plane)
    {
        return maxPlaneRetransmits[plane];
    }

    /**
     * Retransmissions by loss reason in the latest sample, as {@code reason:count} pairs joined by commas.
     *
     * @return the pairs, or {@code none}.
     */
    public String retransmitReasons()
    {
        return 0 == reasons.length() ? "none" : reasons.toString();
    }

    private void onStreamCounter(
        final int counterId, final int typeId, final DirectBuffer keyBuffer, final String label)
    {
        if ((label.startsWith("snd-stream-state: ") || label.startsWith("rcv-stream-state: ")) &&
            (label + " ").contains(streamToken))
        {
            connections.add(connectionToken(label));
        }
    }

    /**
     * The {@code conn=<id>} token of a connection or stream counter's label, or an empty string.
     */
    private static String connectionToken(final String label)
    {
        final int start = label.indexOf("conn=");
        if (start < 0)
        {
            return "";
        }
        final int end = label.indexOf(' ', start);
        return end < 0 ? label.substring(start) : label.substring(start, end);
    }

    private void onCounter(final int counterId, final int typeId, final DirectBuffer keyBuffer, final String label)
    {
        if (label.contains(" stream=") || !connections.contains(connectionToken(label)))
        {
            return;
        }
        final long value = counters.getCounterValue(counterId);
        final int reasonIndex = label.indexOf(" reason=");
        if (reasonIndex >= 0)
        {
            if (label.startsWith("snd-retransmits: ") && value > 0)
            {
                reasons.append(0 == reasons.length() ? "" : ",").append(label.substring(reasonIndex + 8).trim())
                    .append(':').append(value);
            }
            return;
        }
        if (label.startsWith("path-packets: "))
        {
            planePackets[plane(label)] += value;
        }
        else if (label.startsWith("path-retransmits: "))
        {
            planeRetransmits[plane(label)] += value;
        }
        else if (label.startsWith("snd-data-packets: "))
        {
            sendPackets += value;
        }
        else if (label.startsWith("snd-retransmits: "))
        {
            sendRetransmits += value;
        }
        else if (label.startsWith("snd-planes-down: "))
        {
            planesDown += value;
        }
        else if (label.startsWith("snd-cwnd: "))
        {
            cwnd += value;
        }
        else if (label.startsWith("snd-inflight-bytes: "))
        {
            inflight += value;
        }
        else if (label.startsWith("snd-grant-limit: "))
        {
            grantLimit += value;
        }
        else if (label.startsWith("snd-srtt-ns: "))
        {
            srttNs += value;
        }
        else if (label.startsWith("snd-paths-active: "))
        {
            pathsActive += value;
        }
        else if (label.startsWith("rcv-data-packets: "))
        {
            receivePackets += value;
        }
        else if (label.startsWith("rcv-duplicates: "))
        {
            duplicates += value;
        }
        else if (label.startsWith("rcv-out-of-order: "))
        {
            outOfOrder += value;
        }
        else if (label.startsWith("rcv-data-dropped: "))
        {
            receiveDropped += value;
        }
    }

    private int plane(final String label)
    {
        final int plane = Integer.parseInt(label.substring(label.lastIndexOf(" plane=") + 7).trim());
        return Math.min(plane, planePackets.length - 1);
    }
}
