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

import io.metaroce.client.ChannelUri;
import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.client.exceptions.RegistrationException;
import io.metaroce.codec.control.ControlErrorCode;
import io.metaroce.datapath.io.TransportSpec;
import io.metaroce.datapath.settings.SenderPolicies;
import io.metaroce.driver.status.SystemCounterDescriptor;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code metaroce:udp} channels: invalid or conflicting parameters are refused with INVALID_CHANNEL naming the
 * parameter (a subscription conflicts with the receive endpoint while another subscription holds it), a subscription
 * accepts and ignores the publication-only parameters, and equal channels written differently have one canonical
 * form.
 */
class NetworkChannelTest
{
    private static final int STREAM_ID = 4001;

    private NetworkTestHarness harness;
    private MetaRoce client;

    @BeforeEach
    void setUp()
    {
        harness = new NetworkTestHarness(2);
        client = harness.connect(harness.launch(NetworkTestHarness.driverContext()));
    }

    @AfterEach
    void tearDown()
    {
        harness.close();
    }

    @Test
    void shouldRefusePublicationChannelsNamingTheParameter()
    {
        final String endpoints = "metaroce:udp?endpoint=127.0.0.2:40456,127.0.0.3:40456";
        assertRefused(false, "metaroce:udp?mtu=1408", "'endpoint'");
        assertRefused(false, "metaroce:udp?endpoint=127.0.0.2:40456,127.0.0.3:40457", "'endpoint'");
        assertRefused(false, "metaroce:udp?endpoint=127.0.0.2", "'endpoint'");
        assertRefused(false, "metaroce:udp?endpoint=127.0.0.2:0", "'endpoint'");
        assertRefused(false, "metaroce:udp?endpoint=no-such-host.invalid:40456", "'endpoint'");
        assertRefused(false, "metaroce:udp?endpoint=239.1.1.1:40456|interface=127.0.1.1", "multicast");
        assertRefused(false, endpoints + "|interface=127.0.1.1,224.0.0.1", "'interface': plane 1");
        assertRefused(false, endpoints + "|interface=127.0.1.1", "'interface'");
        assertRefused(false, endpoints + "|interface=127.0.1.1,127.0.1.1", "'interface'");
        assertRefused(false, endpoints + "|entropy=0", "'entropy");
        assertRefused(false, endpoints + "|entropy=600", "'entropy");
        assertRefused(false, endpoints + "|mtu=100", "'mtu");
        assertRefused(false, endpoints + "|mtu=1409", "'mtu");
        assertRefused(false, endpoints + "|term-length=100000", "'term-length");
        assertRefused(false, endpoints + "|term-window=10m", "'term-window");
        assertRefused(false, endpoints + "|credit=maybe", "'credit");
        assertRefused(false, endpoints + "|cc=yes", "'cc");
        assertRefused(false, endpoints + "|cc=cubic", "'cc");
        assertRefused(false, endpoints + "|path-policy=random", "'path-policy");
        assertRefused(false, endpoints + "|path-burst=0", "'path-burst");
        assertRefused(false, endpoints + "|path-burst=65", "'path-burst");
        assertRefused(false, endpoints + "|path-burst=many", "'path-burst");
        assertRefused(false, endpoints + "|path-eviction=1", "'path-eviction");
        assertRefused(false, endpoints + "|link-rate=-5", "'link-rate");
        assertRefused(false, endpoints + "|linger=soon", "'linger");
        assertRefused(false, endpoints + "|transport=dpdk", "'transport=dpdk'");
        assertRefused(false, endpoints + "|batch-length=16", "'batch-length'");
        assertRefused(false, endpoints + "|transport=nio|batch-length=16", "'batch-length'");
        assertRefused(false, endpoints + "|transport=batched|batch-length=1", "'batch-length");
        assertRefused(false, endpoints + "|transport=batched|batch-length=2000", "'batch-length");
        assertRefused(false, endpoints + "|segmentation=true", "'segmentation'");
        assertRefused(false, endpoints + "|transport=batched|segmentation=maybe", "'segmentation");
        assertRefused(false, endpoints + "|traffic-class=fast", "'traffic-class=fast' must be bulk or low-latency");
        assertRefused(false, endpoints + "|traffic-class=LOW_LATENCY", "'traffic-class");
        assertRefused(false, endpoints + "|colour=blue", "'colour'");
        assertRefused(false, endpoints, "'interface'");
        assertRefused(false, endpoints + "|interface=192.0.2.1,192.0.2.2", "'interface'");
    }

    @Test
    void shouldRefuseSubscriptionChannelsNamingTheParameter()
    {
        final String channel = harness.subscriptionChannel("");
        final RegistrationException unknown = assertRefused(true, channel + "|colour=blue", "'colour'");
        assertTrue(unknown.getMessage().contains("endpoint, entropy, mtu") &&
            unknown.getMessage().contains("ignores the publication-only interface, term-window, linger"),
            unknown.getMessage());
        assertRefused(true, channel + "|rcv-window=1", "'rcv-window");
        assertRefused(true, "metaroce:udp?endpoint=239.1.1.1:40456", "239.1.1.1 is a multicast address");
        assertRefused(true, "metaroce:udp?endpoint=[ff02::1]:40456", "is a multicast address");
        assertRefused(true, channel + "|cc=reno", "'cc");

        try (Subscription held = client.addSubscription(channel, STREAM_ID))
        {
            assertRefused(true, channel + "|credit=false", "'credit'");
            assertRefused(true, channel + "|mtu=4096", "'mtu'");
            assertTrue(NetworkPubSubTest.countLabels(client, "rcv-datagrams: engine", "") > 0, held.channel());
        }

        Await.until("receive endpoint released", () -> 0 == LivenessTest.counterValue(
            client.countersReader(), SystemCounterDescriptor.RECEIVE_ENDPOINTS.label()));
        client.addSubscription(channel + "|credit=false", STREAM_ID).close();
    }

    @Test
    void shouldRefuseBroadcastAndForeignAddressesNamingTheParameterAndTheReason()
    {
        // 198.51.100.0/24 (TEST-NET-2) is documentation space: no host has it
        assertRefused(true, "metaroce:udp?endpoint=127.0.0.2:40456,198.51.100.7:40456",
            "parameter 'endpoint': plane 1 names 198.51.100.7, which is not an address of this host");
        assertRefused(true, "metaroce:udp?endpoint=255.255.255.255:40456",
            "parameter 'endpoint': plane 0 names 255.255.255.255, the limited broadcast address");
        assertRefused(false, "metaroce:udp?endpoint=255.255.255.255:40456|interface=127.0.1.1",
            "parameter 'endpoint': plane 0 names 255.255.255.255, the limited broadcast address");
        assertRefused(false, harness.publicationChannel("").replace("127.0.1.2", "198.51.100.7"),
            "parameter 'interface': plane 1 names 198.51.100.7, which is not an address of this host");

        // a subnet's broadcast address, on a host whose interfaces have one (loopback has none)
        final InetAddress subnetBroadcast = subnetBroadcast();
        System.out.println("subnet broadcast address of this host: " + subnetBroadcast);
        if (null != subnetBroadcast)
        {
            final String host = subnetBroadcast.getHostAddress();
            assertRefused(true, "metaroce:udp?endpoint=" + host + ":40456",
                "parameter 'endpoint': plane 0 names " + host + ", the broadcast address of interface");
            assertRefused(false, "metaroce:udp?endpoint=" + host + ":40456|interface=127.0.1.1",
                "parameter 'endpoint': plane 0 names " + host + ", the broadcast address of interface");
        }

        // the wildcard and the whole loopback range are bindable on every host
        client.addSubscription("metaroce:udp?endpoint=0.0.0.0:0", STREAM_ID).close();
        client.addSubscription("metaroce:udp?endpoint=127.45.6.7:0", STREAM_ID).close();
    }

    private static InetAddress subnetBroadcast()
    {
        try
        {
            for (final NetworkInterface networkInterface : Collections.list(NetworkInterface.getNetworkInterfaces()))
            {
                for (final InterfaceAddress address : networkInterface.getInterfaceAddresses())
                {
                    if (null != address.getBroadcast() && !address.getBroadcast().isAnyLocalAddress())
                    {
                        return address.getBroadcast();
                    }
                }
            }
            return null;
        }
        catch (final SocketException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    @Test
    void shouldAcceptAndIgnorePublicationOnlyParametersOnASubscription()
    {
        // One channel string for both ends, as Aeron code shares it; the value of an ignored parameter is not read.
        final String channel = harness.publicationChannel(
            "|term-window=64k|linger=200ms|path-policy=round-robin|path-counters=true");
        try (Subscription subscription = client.addSubscription(channel, STREAM_ID);
            Publication publication = client.addPublication(channel, STREAM_ID))
        {
            Await.until("connected", () -> publication.isConnected() && subscription.isConnected());
            final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
            message.putLong(0, 42L);
            Await.until("offered", () -> publication.offer(message, 0, 8) > 0);
            final long[] received = new long[1];
            Await.until("received", () ->
            {
                subscription.poll((buffer, offset, length, header) -> received[0] = buffer.getLong(offset), 10);
                return 42L == received[0];
            });
        }

        final MediaDriver.Context ctx = new MediaDriver.Context();
        final UdpChannel ignored = UdpChannel.forSubscription(
            ChannelUri.parse(harness.subscriptionChannel("|interface=no-such-host.invalid|term-window=7|linger=x")),
            ctx);
        assertEquals(UdpChannel.forSubscription(ChannelUri.parse(harness.subscriptionChannel("")), ctx)
            .canonicalForm(), ignored.canonicalForm());
    }

    @Test
    void shouldGiveEqualChannelsOneCanonicalForm()
    {
        final MediaDriver.Context ctx = new MediaDriver.Context();
        final UdpChannel a = UdpChannel.forPublication(
            ChannelUri.parse("metaroce:udp?endpoint=localhost:40456|mtu=1440|credit=true"), ctx);
        final UdpChannel b = UdpChannel.forPublication(
            ChannelUri.parse("metaroce:udp?credit=true|endpoint=127.0.0.1:40456"), ctx);
        final UdpChannel c = UdpChannel.forPublication(
            ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456|entropy=8"), ctx);

        assertEquals(a.canonicalForm(), b.canonicalForm());
        assertEquals(a.sendEndpointKey(), b.sendEndpointKey());
        assertNotEquals(a.canonicalForm(), c.canonicalForm());
        assertEquals(a.receiveEndpointKey(), c.receiveEndpointKey());
        assertEquals(1440 - UdpChannel.DATA_HEADER_LENGTH & ~31, a.frameMtu(0));
        assertEquals(1440 - 16 - UdpChannel.DATA_HEADER_LENGTH & ~31, a.frameMtu(16));
    }

    @Test
    void shouldLeaveAKeyedDriversIpv4PublicationsRoomForTheSealTrailer()
    {
        final MediaDriver.Context keyed = new MediaDriver.Context().authKeyFile("driver.key");
        final UdpChannel ipv4 = UdpChannel.forPublication(
            ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456,127.0.0.2:40456"), keyed);
        assertEquals(1472, ipv4.mtu);
        assertTrue(ipv4.canonicalForm().contains("|mtu=1472|"), ipv4.canonicalForm());
        assertEquals(1376, ipv4.frameMtu(24), "a 1344-byte message in one sealed DATA");

        assertEquals(1440, UdpChannel.forPublication(
            ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456,[::1]:40456"), keyed).mtu, "IPv6 has no room");
        assertEquals(1440, UdpChannel.forPublication(
            ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456|mtu=1440"), keyed).mtu, "an mtu chosen is kept");
        assertEquals(1440, UdpChannel.forPublication(
            ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456"), new MediaDriver.Context()).mtu, "no key");
        assertEquals(UdpChannel.forSubscription(ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456"),
            new MediaDriver.Context()).mtu, UdpChannel.forSubscription(
            ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456"), keyed).mtu, "a subscription accepts either");
        assertEquals(1408, UdpChannel.defaultMtu(1408, true, ipv4.endpoints), "a driver's mtu chosen is kept");
    }

    @Test
    void shouldCarryThePathBurstInTheCanonicalFormAndTheConnectionSettings()
    {
        final MediaDriver.Context ctx = new MediaDriver.Context();
        final UdpChannel plain =
            UdpChannel.forPublication(ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456"), ctx);
        final UdpChannel four =
            UdpChannel.forPublication(ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456|path-burst=4"), ctx);

        assertTrue(plain.canonicalForm().contains("|path-policy=weighted|path-burst=" +
            io.metaroce.datapath.settings.Configuration.PATH_BURST_DEFAULT + "|path-eviction="), plain.canonicalForm());
        assertTrue(four.canonicalForm().contains("|path-policy=weighted|path-burst=4|"), four.canonicalForm());
        assertEquals(4, four.engineSettings.paths().pathBurst());
        assertEquals(plain.sendEndpointKey(), four.sendEndpointKey(), "the burst travels with the connection");
        assertNotEquals(plain.connectionForm(), four.connectionForm(), "another burst, another connection");
        final UdpChannel subscription =
            UdpChannel.forSubscription(ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456|path-burst=4"), ctx);
        assertFalse(subscription.canonicalForm().contains("path-burst"), subscription.canonicalForm());

        final MediaDriver.Context small = new MediaDriver.Context().engineSettings(
            io.metaroce.datapath.settings.EngineSettings.builder().sendBurst(4).pathBurst(2).build());
        assertEquals(4, UdpChannel.forPublication(
            ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456|path-burst=4"), small).pathBurst);
        final ControlProtocolException above = assertThrows(ControlProtocolException.class, () ->
            UdpChannel.forPublication(ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456|path-burst=5"), small));
        assertEquals(ControlErrorCode.INVALID_CHANNEL, above.code());
        assertTrue(above.getMessage().contains("'path-burst=5'") &&
            above.getMessage().contains("metaroce.datapath.send.burst (4)"), above.getMessage());
    }

    @Test
    void shouldNameTheCongestionControllerAndPathPolicyInTheCanonicalForm()
    {
        final MediaDriver.Context ctx = new MediaDriver.Context();
        final UdpChannel plain =
            UdpChannel.forPublication(ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456"), ctx);
        final UdpChannel delay = UdpChannel.forPublication(
            ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456|cc=true|path-policy=weighted"), ctx);
        final UdpChannel aimd = UdpChannel.forPublication(
            ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456|cc=aimd|path-policy=round-robin"), ctx);
        final UdpChannel off = UdpChannel.forPublication(
            ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456|cc=false"), ctx);

        assertEquals(plain.canonicalForm(), delay.canonicalForm(), "cc=true is the default controller, delay");
        assertTrue(plain.canonicalForm().contains("|cc=delay|path-policy=weighted|"), plain.canonicalForm());
        assertTrue(aimd.canonicalForm().contains("|cc=aimd|path-policy=round-robin|"), aimd.canonicalForm());
        assertEquals(plain.sendEndpointKey(), aimd.sendEndpointKey(), "the policies travel with the connection");
        assertTrue(!plain.connectionForm().equals(aimd.connectionForm()), "other policies, another connection");
        final UdpChannel otherTerm = UdpChannel.forPublication(ChannelUri.parse(
            "metaroce:udp?endpoint=127.0.0.1:40456|cc=true|path-policy=weighted|term-length=64k|rcv-window=32k"), ctx);
        assertEquals(plain.connectionForm(), otherTerm.connectionForm(), "stream parameters do not split a connection");
        assertTrue(!plain.canonicalForm().equals(otherTerm.canonicalForm()));
        assertTrue(plain.connectionForm().startsWith("metaroce:udp?endpoint=127.0.0.1:40456|entropy=") &&
            !plain.connectionForm().contains("term-length"), plain.connectionForm());
        assertEquals(SenderPolicies.AIMD, aimd.congestionControlName);
        assertTrue(aimd.congestionControl);
        assertEquals("round-robin", aimd.pathPolicy);
        assertFalse(off.congestionControl, "cc=false: no sender window");
        assertTrue(off.canonicalForm().contains("|cc=false|"), off.canonicalForm());
    }

    @Test
    void shouldDefaultBothWindowsToATermAndRefuseMore()
    {
        final MediaDriver.Context ctx = new MediaDriver.Context();
        final UdpChannel plain = UdpChannel.forPublication(
            ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456|term-length=64k"), ctx);
        assertEquals(64 * 1024, plain.termWindowLength, "a hole's repair needs a window beyond a round trip");
        assertEquals(64 * 1024, plain.receiverWindowLength);
        final UdpChannel half = UdpChannel.forPublication(
            ChannelUri.parse("metaroce:udp?endpoint=127.0.0.1:40456|term-length=64k|term-window=32k|rcv-window=32k"),
            ctx);
        assertEquals(32 * 1024, half.termWindowLength);
        assertEquals(32 * 1024, half.receiverWindowLength);
        final ControlProtocolException beyond = assertThrows(ControlProtocolException.class, () ->
            UdpChannel.forPublication(ChannelUri.parse(
                "metaroce:udp?endpoint=127.0.0.1:40456|term-length=64k|rcv-window=65568"), ctx));
        assertTrue(beyond.getMessage().contains("'rcv-window=65568'") &&
            beyond.getMessage().contains("the term length 65536"), beyond.getMessage());
    }

    @Test
    void shouldNameTheTransportInTheCanonicalFormAndTheEndpointKeys()
    {
        final MediaDriver.Context ctx = new MediaDriver.Context();
        final String channel = "metaroce:udp?endpoint=127.0.0.1:40456";
        final UdpChannel plain = UdpChannel.forPublication(ChannelUri.parse(channel), ctx);
        final UdpChannel nio = UdpChannel.forPublication(ChannelUri.parse(channel + "|transport=nio"), ctx);
        final UdpChannel batched = UdpChannel.forPublication(ChannelUri.parse(channel + "|transport=batched"), ctx);
        final UdpChannel eight = UdpChannel.forPublication(
            ChannelUri.parse(channel + "|segmentation=false|transport=batched|batch-length=8"), ctx);

        assertFalse(plain.canonicalForm().contains("transport="), "the driver's transport: " + plain.canonicalForm());
        assertEquals(TransportSpec.FACTORY_BATCHING, plain.batchLength);
        assertTrue(nio.canonicalForm().endsWith("|transport=nio"), nio.canonicalForm());
        assertEquals(0, nio.batchLength);
        assertTrue(batched.canonicalForm().endsWith("|transport=batched|batch-length=" +
            Configuration.TRANSPORT_BATCH_LENGTH_DEFAULT + "|segmentation=true"), batched.canonicalForm());
        assertTrue(eight.canonicalForm().endsWith("|transport=batched|batch-length=8|segmentation=false"),
            eight.canonicalForm());
        assertEquals(8, eight.batchLength);
        assertFalse(eight.segmentation);
        assertNotEquals(plain.sendEndpointKey(), nio.sendEndpointKey(), "other sockets for another transport");
        assertNotEquals(batched.sendEndpointKey(), eight.sendEndpointKey());
        assertEquals(plain.receiveEndpointKey(), eight.receiveEndpointKey(), "one receive endpoint per endpoints");
    }

    @Test
    void shouldRunAnEndpointOnTheTransportItsChannelNames()
    {
        final String batched = "|entropy=1|transport=batched|batch-length=8|segmentation=false";
        // the same receive endpoint, fed by a second send endpoint of its own (other local addresses) on NIO
        final String nio = "metaroce:udp?endpoint=" + harness.endpoints() +
            "|interface=127.0.3.1,127.0.3.2|entropy=1|transport=nio";
        try (Subscription subscription = client.addSubscription(harness.subscriptionChannel(batched), STREAM_ID);
            Publication publication = client.addPublication(harness.publicationChannel(batched), STREAM_ID);
            Subscription other = client.addSubscription(harness.subscriptionChannel(batched), STREAM_ID + 2);
            Publication nioPublication = client.addPublication(nio, STREAM_ID + 2))
        {
            Await.until("connected", () -> publication.isConnected() && subscription.isConnected() &&
                nioPublication.isConnected() && other.isConnected());
            assertRefused(true, harness.subscriptionChannel("|entropy=1|transport=nio"), "'transport'");
            client.addSubscription(harness.subscriptionChannel("|entropy=1"), STREAM_ID + 1).close();

            burst(publication, subscription, 2_000);
            burst(nioPublication, other, 2_000);

            // in the bursts each duty cycle sent several datagrams per batched socket, in one sendmmsg each
            final String batchedLabel = "engine agent=sender src=127.0.1.1";
            final long calls = NetworkPubSubTest.sumCounters(client, "io-send-calls: " + batchedLabel);
            final long datagrams = NetworkPubSubTest.sumCounters(client, "io-sent-datagrams: " + batchedLabel);
            assertTrue(datagrams > calls, "more datagrams than send calls: " + datagrams + " in " + calls);
            // and NIO makes a call for each, whatever the driver's own transport
            final String nioLabel = "engine agent=sender src=127.0.3.1";
            final long nioCalls = NetworkPubSubTest.sumCounters(client, "io-send-calls: " + nioLabel);
            final long nioDatagrams = NetworkPubSubTest.sumCounters(client, "io-sent-datagrams: " + nioLabel);
            assertTrue(nioDatagrams >= 1_000 && nioDatagrams <= nioCalls,
                "a call per datagram on NIO: " + nioDatagrams + " in " + nioCalls);
            assertTrue(NetworkPubSubTest.sumCounters(client, "io-received-datagrams: engine agent=receiver") >=
                2_000, "received datagrams counted");
        }
    }

    /**
     * Offer {@code count} 1 KiB messages as fast as the publication takes them and receive them all.
     */
    private static void burst(final Publication publication, final Subscription subscription, final int count)
    {
        final UnsafeBuffer message = new UnsafeBuffer(new byte[1024]);
        int sent = 0;
        final int[] received = new int[1];
        final Await.Deadline deadline = new Await.Deadline(30_000);
        while (received[0] < count)
        {
            while (sent < count && publication.offer(message, 0, message.capacity()) > 0)
            {
                sent++;
            }
            if (0 == subscription.poll((buffer, offset, length, header) -> received[0]++, 64))
            {
                deadline.check("messages received");
                LockSupport.parkNanos(10_000);
            }
        }
    }

    private RegistrationException assertRefused(
        final boolean subscription, final String channel, final String parameter)
    {
        final RegistrationException ex = assertThrows(RegistrationException.class, () ->
        {
            if (subscription)
            {
                client.addSubscription(channel, STREAM_ID);
            }
            else
            {
                client.addPublication(channel, STREAM_ID);
            }
        }, channel);
        assertEquals(ControlErrorCode.INVALID_CHANNEL, ex.errorCode(), channel);
        assertTrue(ex.getMessage().contains(parameter), channel + ": " + ex.getMessage());
        return ex;
    }
}
