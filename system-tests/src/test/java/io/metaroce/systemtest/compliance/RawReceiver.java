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
package io.metaroce.systemtest.compliance;

import io.metaroce.codec.wire.SetupDecoder;

import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.Set;

/**
 * The raw peer playing the receiver of a connection that the target's publication opens: it answers SETUP with a
 * crafted SETUP_ACK and acknowledges, refuses or grants credit as each test scripts it. Answers go to the target's
 * address on their plane and the SETUP's replyPort.
 */
final class RawReceiver
{
    final RawPeer peer;
    final PeerUnderTest target;
    final int localId;
    final Set<Integer> received = new HashSet<>();
    Datagram setup;
    int senderId;
    int isn;
    int replyPort;
    int cumAck;
    long receivedBytes;
    long grantLimit;

    final Set<Integer> senderIds = new HashSet<>();

    RawReceiver(final RawPeer peer, final PeerUnderTest target, final int localId)
    {
        this.peer = peer;
        this.target = target;
        this.localId = localId;
    }

    /**
     * The first SETUP of a new incarnation (a sender id not seen before).
     */
    Datagram awaitSetup()
    {
        setup = peer.await(
            (d) -> d.is(SetupDecoder.TEMPLATE_ID) && !senderIds.contains(d.srcConnId()), "SETUP of a new incarnation");
        senderIds.add(setup.srcConnId());
        received.clear();
        receivedBytes = 0;
        senderId = setup.srcConnId();
        isn = setup.psn();
        cumAck = isn;
        replyPort = setup.read().setup().replyPort();
        return setup;
    }

    /**
     * Answer the SETUP with a SETUP_ACK that grants what it asked for, with or without credit.
     */
    void accept(final long initialGrantLimit, final boolean credit)
    {
        final SetupDecoder s = setup.read().setup();
        final int mprPsns = (int)s.mprPsns();
        final int mtu = s.mtu();
        grantLimit = credit ? initialGrantLimit : 0;
        send(setup.plane, peer.out.setupAck(HeaderFields.ids(senderId, localId).psn(isn).echo(setup),
            setup, grantLimit, mprPsns, mtu, credit));
        peer.mtu = mtu;
    }

    HeaderFields header(final int plane)
    {
        return HeaderFields.ids(senderId, localId).plane(plane);
    }

    InetSocketAddress replyAddress(final int plane)
    {
        return new InetSocketAddress(target.address(plane).getAddress(), replyPort);
    }

    void send(final int plane, final int length)
    {
        peer.sendTo(plane, replyAddress(plane), length);
    }

    /**
     * Record a DATA as received and answer it with an ACK: cumulative PSN, no SACK words.
     */
    void receiveAndAck(final Datagram data)
    {
        if (received.add(data.psn()))
        {
            receivedBytes += data.read().payloadLength();
        }
        while (received.contains(cumAck))
        {
            cumAck++;
        }
        ack(data, cumAck & ~63);
    }

    /**
     * Record a DATA as received and answer it with an ACK whose SACK words cover up to 512 PSNs from floor64(cumAck).
     */
    void receiveAndSack(final Datagram data)
    {
        if (received.add(data.psn()))
        {
            receivedBytes += data.read().payloadLength();
        }
        while (received.contains(cumAck))
        {
            cumAck++;
        }
        final int base = cumAck & ~63;
        final long[] words = new long[8];
        int used = 0;
        for (final int psn : received)
        {
            final int bit = psn - base;
            if (bit >= 0 && bit < 512)
            {
                words[bit >> 6] |= 1L << (bit & 63);
                used = Math.max(used, (bit >> 6) + 1);
            }
        }
        ack(data, base, java.util.Arrays.copyOf(words, used));
    }

    void ack(final Datagram trigger, final int sackBase, final long... words)
    {
        final HeaderFields fields = header(trigger.plane).echo(trigger).psn(cumAck);
        send(trigger.plane, peer.out.ack(fields, sackBase, receivedBytes, grantLimit, words));
    }

    /**
     * Answer a PROBE as a receiver must: one PROBE_ACK on its plane, and an ACK when it asks for one.
     */
    void answerProbe(final Datagram probe)
    {
        final io.metaroce.codec.wire.ProbeDecoder decoder = probe.read().probe();
        final long probeSeq = decoder.probeSeq();
        final io.metaroce.codec.wire.ProbeKind kind = decoder.kind();
        send(probe.plane, peer.out.probeAck(header(probe.plane).echo(probe).psn(cumAck), probeSeq, kind, grantLimit));
        if (probe.hasFlag(Flags.ACK_REQUEST))
        {
            ack(probe, cumAck & ~63);
        }
    }
}
