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

import io.metaroce.datapath.connection.SharedCreditScheduler;

import java.util.HashMap;
import java.util.TreeSet;

/**
 * The conductor's credit schedulers, one per local receiving link: the set of local plane addresses a receive
 * endpoint binds, ports ignored (the wildcard address is a link of its own, meaning the host). Every receive
 * endpoint on a link takes its grants from the link's {@link SharedCreditScheduler}, so one credit budget and one
 * credit window hold over every sender of every channel the driver receives on that link. The channels on a link
 * must agree on the budget ({@code link-rate}); the other credit settings are driver-wide.
 * <p>
 * Reference-counted by the receive endpoints: a link is acquired when an endpoint is created and released when the
 * endpoint has closed (its engine has then removed its connections from the scheduler), and the scheduler is
 * forgotten with the link's last endpoint. Conductor thread only; the schedulers themselves run on the receiver
 * agent's thread, which gets each with the endpoint that uses it, and this class reads only their final settings.
 */
final class CreditLinks
{
    private final HashMap<String, Link> links = new HashMap<>();

    /**
     * The link a channel receives on: its endpoints' addresses, sorted and without duplicates.
     */
    static String key(final UdpChannel channel)
    {
        final TreeSet<String> addresses = new TreeSet<>();
        for (int i = 0; i < channel.planeCount(); i++)
        {
            addresses.add(channel.endpoints[i].getAddress().getHostAddress());
        }

        return String.join(",", addresses);
    }

    /**
     * Take the scheduler of the channel's link for a new receive endpoint, creating it with the channel's engine
     * settings if the link has none.
     *
     * @throws ControlProtocolException naming {@code link-rate} when the endpoint's credit budget differs from the
     *                                  budget of the link's scheduler.
     */
    SharedCreditScheduler acquire(final UdpChannel channel)
    {
        final String key = key(channel);
        final Link link = links.get(key);
        if (null == link)
        {
            final Link created = new Link(new SharedCreditScheduler(channel.engineSettings));
            links.put(key, created);
            return created.scheduler;
        }

        final long budgetMbps = SharedCreditScheduler.budgetMbps(channel.engineSettings);
        if (budgetMbps != link.scheduler.budgetMbps())
        {
            throw UdpChannel.invalid("parameter '" + UdpChannel.LINK_RATE_PARAM + "' conflicts with the credit " +
                "budget of the subscriptions already receiving on local address " + key + ": " + budgetMbps +
                " Mb/s requested, " + link.scheduler.budgetMbps() + " Mb/s in use (one credit scheduler per link)");
        }
        link.refCount++;

        return link.scheduler;
    }

    /**
     * A receive endpoint on the channel's link has closed, or was never handed to the receiver.
     */
    void release(final UdpChannel channel)
    {
        final String key = key(channel);
        final Link link = links.get(key);
        if (null != link && --link.refCount <= 0)
        {
            links.remove(key);
        }
    }

    /**
     * Forget every link: the driver closed its receive endpoints.
     */
    void clear()
    {
        links.clear();
    }

    /**
     * Links with at least one receive endpoint.
     */
    int size()
    {
        return links.size();
    }

    /**
     * Granted-but-unreceived bytes over every link, read on the receiver agent's thread (tests run the driver with
     * INVOKER threading and read between duty cycles).
     */
    long outstandingBytes()
    {
        long total = 0;
        for (final Link link : links.values())
        {
            total += link.scheduler.outstandingBytes();
        }

        return total;
    }

    /**
     * The credit windows in force over every link, which follow the senders' demand, read as
     * {@link #outstandingBytes()} is.
     */
    long adaptedWindowBytes()
    {
        long total = 0;
        for (final Link link : links.values())
        {
            total += link.scheduler.adaptedWindowBytes();
        }

        return total;
    }

    private static final class Link
    {
        private final SharedCreditScheduler scheduler;
        private int refCount = 1;

        private Link(final SharedCreditScheduler scheduler)
        {
            this.scheduler = scheduler;
        }
    }
}
