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

import io.metaroce.codec.wire.CloseAckDecoder;
import io.metaroce.codec.wire.CloseDecoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.CreditDecoder;
import io.metaroce.codec.wire.CreditRequestDecoder;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ErrorDecoder;
import io.metaroce.codec.wire.NackDecoder;
import io.metaroce.codec.wire.ProbeAckDecoder;
import io.metaroce.codec.wire.ProbeDecoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.StatusDecoder;
import io.metaroce.codec.wire.StreamCloseDecoder;
import io.metaroce.codec.wire.StreamWindowDecoder;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Drives the target through both roles until it has sent every one of the 17 message types of version 2, and checks
 * that none of them broke a requirement that binds every datagram ({@link WireInvariants}): encapsulation, header
 * fields, reserved fields and flags, ACK and NACK fields, ERROR text, STATUS size, SETUP modes, flags and
 * extensions, SETUP_ACK options, STREAM_ACK fields, STREAM_WINDOW size, and version 2 templates only.
 */
class WireInvariantsComplianceTest extends ComplianceTest
{
    static final int STREAM_ID = 6006;

    @Test
    @Requirement({ "MR-ENC-1", "MR-ENC-3", "MR-ENC-4", "MR-ENC-6", "MR-ENC-8", "MR-HDR-1", "MR-HDR-2", "MR-HDR-3",
        "MR-HDR-4", "MR-HDR-5", "MR-HDR-10", "MR-HDR-11", "MR-ACK-1", "MR-ACK-2", "MR-ACK-6", "MR-ACK-17",
        "MR-NACK-1", "MR-ERR-3", "MR-STAT-3", "MR-SETUP-3", "MR-VER-6", "MR-EXT-1", "MR-EXT-4", "MR-EXT-7",
        "MR-EXT-8", "MR-STRM-15", "MR-STRM-22" })
    void shouldKeepEveryDatagramOfEveryMessageTypeWithinTheEncodingRules()
    {
        start(new TargetSettings().statusIntervalNs(20_000_000L).keepaliveIntervalNs(20_000_000L)
            .lingerTimeoutNs(300_000_000L));
        target.subscribe(STREAM_ID);

        final RawSender sender = new RawSender(peer, STREAM_ID, 1, 0x0102_0304, 77);
        sender.setup.mprPsns = 64;
        sender.establish();
        sender.dataAndAck(77);
        peer.await((d) -> d.is(StreamWindowDecoder.TEMPLATE_ID), "STREAM_WINDOW as the subscriber reads");
        sender.data(77 + 200, Flags.ACK_REQUEST, 0);
        peer.await((d) -> d.is(NackDecoder.TEMPLATE_ID), "NACK");
        peer.send(0, peer.out.creditRequest(sender.header(0).psn(78), 1 << 20));
        peer.send(1, peer.out.probe(sender.header(1).flags(Flags.ACK_REQUEST).path(1, 0).psn(78), 1, ProbeKind.PATH));
        peer.await((d) -> d.is(ProbeAckDecoder.TEMPLATE_ID), "PROBE_ACK");
        peer.await((d) -> d.is(CreditDecoder.TEMPLATE_ID), "CREDIT");
        peer.await((d) -> d.is(StatusDecoder.TEMPLATE_ID), "STATUS");
        sender.close(sender.stream, sender.position(78));
        peer.send(0, peer.out.close(sender.header(0).flags(Flags.FIN).psn(78), CloseReason.NORMAL));
        peer.await((d) -> d.is(CloseAckDecoder.TEMPLATE_ID), "CLOSE_ACK");
        final RawSender invalid = new RawSender(peer, STREAM_ID + 1, 1, 0x0102_0305, 1);
        invalid.setup.mprPsns = 100;
        invalid.sendSetup(0);
        peer.await((d) -> d.is(ErrorDecoder.TEMPLATE_ID), "ERROR");

        final RawReceiver receiver = new RawReceiver(peer, target, 0x0A0B_0C0D);
        final PeerUnderTest.PublicationUnderTest publication = target.publish(STREAM_ID, 2, peer.addresses());
        receiver.awaitSetup();
        receiver.accept(2048, true);
        receiver.openStream();
        for (int i = 0; i < 4; i++)
        {
            assertTrue(publication.offer(new byte[1000]));
        }
        receiver.receiveAndAck(peer.await((d) -> d.is(DataDecoder.TEMPLATE_ID), "DATA"));
        final Datagram request = peer.await((d) -> d.is(CreditRequestDecoder.TEMPLATE_ID), "CREDIT_REQUEST");
        receiver.grantLimit = 1 << 20;
        receiver.send(request.plane, peer.out.credit(receiver.header(request.plane).psn(receiver.cumAck),
            receiver.grantLimit));
        while (receiver.cumAck != receiver.isn + 4)
        {
            receiver.receiveAndAck(peer.await((d) -> d.is(DataDecoder.TEMPLATE_ID), "DATA"));
        }
        final Datagram probe = peer.await((d) -> d.is(ProbeDecoder.TEMPLATE_ID), "PROBE");
        receiver.answerProbe(probe);
        publication.close();
        final Datagram streamClose = peer.await((d) -> d.is(StreamCloseDecoder.TEMPLATE_ID) ||
            (d.is(DataDecoder.TEMPLATE_ID) && receiveAndAck(receiver, d)), "STREAM_CLOSE");
        receiver.acceptClose(streamClose);
        awaitTrue(() -> publication.streamEnds().contains(end("NORMAL")), "the publication closes");
        final Datagram close = peer.await((d) -> d.is(CloseDecoder.TEMPLATE_ID) ||
            (d.is(ProbeDecoder.TEMPLATE_ID) && answerProbe(receiver, d)), "CLOSE after the connection's linger");
        receiver.send(close.plane, peer.out.closeAck(receiver.header(close.plane).echo(close).psn(close.psn()),
            CloseReason.NORMAL));

        final TreeSet<Integer> templates = new TreeSet<>();
        for (final Datagram d : peer.history())
        {
            templates.add(d.templateId);
        }
        assertEquals(new TreeSet<>(List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17)), templates,
            "every message type was sent and checked");
        assertEquals(List.of(), peer.violations(), "the target broke an encoding requirement");
    }

    private static boolean receiveAndAck(final RawReceiver receiver, final Datagram data)
    {
        receiver.receiveAndAck(data);
        return false;
    }

    private static boolean answerProbe(final RawReceiver receiver, final Datagram probe)
    {
        receiver.answerProbe(probe);
        return false;
    }
}
