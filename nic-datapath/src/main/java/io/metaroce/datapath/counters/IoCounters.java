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
package io.metaroce.datapath.counters;

import io.metaroce.datapath.io.PacketTransport;
import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/**
 * A socket group's packet I/O totals, copied from its transport at the end of every engine duty cycle: system calls
 * made to send and datagrams sent (their ratio is datagrams per send call), datagrams a batching transport queued
 * but could not send, system calls made to receive and datagrams received. A transport that does not count shows 0.
 */
public final class IoCounters implements AutoCloseable
{
    private final AtomicCounter sendCalls;
    private final AtomicCounter sentDatagrams;
    private final AtomicCounter sendDrops;
    private final AtomicCounter receiveCalls;
    private final AtomicCounter receivedDatagrams;
    private final AtomicCounter latencyDatagrams;

    /**
     * A socket group's packet I/O counters, all allocated.
     *
     * @param manager      where the counters are allocated.
     * @param groupContext the group's context: the engine's and the group's labels.
     */
    public IoCounters(final CountersManager manager, final String groupContext)
    {
        final int type = DatapathCounters.IO_TYPE_ID;
        sendCalls = DatapathCounters.allocate(manager, type, "io-send-calls", groupContext);
        sentDatagrams = DatapathCounters.allocate(manager, type, "io-sent-datagrams", groupContext);
        sendDrops = DatapathCounters.allocate(manager, type, "io-send-drops", groupContext);
        receiveCalls = DatapathCounters.allocate(manager, type, "io-receive-calls", groupContext);
        receivedDatagrams = DatapathCounters.allocate(manager, type, "io-received-datagrams", groupContext);
        latencyDatagrams = DatapathCounters.allocate(manager, type, "io-latency-datagrams", groupContext);
    }

    /**
     * Copy the transport's totals; release stores, so a reader that sees a call count sees the datagrams counted
     * with it or later ones.
     *
     * @param transport the socket group's transport.
     */
    public void update(final PacketTransport transport)
    {
        sentDatagrams.setRelease(transport.sentDatagrams());
        sendDrops.setRelease(transport.sendDrops());
        sendCalls.setRelease(transport.sendCalls());
        receivedDatagrams.setRelease(transport.receivedDatagrams());
        receiveCalls.setRelease(transport.receiveCalls());
        latencyDatagrams.setRelease(transport.latencyDatagrams());
    }

    /**
     * Free the counters.
     */
    public void close()
    {
        CloseHelper.closeAll(sendCalls, sentDatagrams, sendDrops, receiveCalls, receivedDatagrams, latencyDatagrams);
    }
}
