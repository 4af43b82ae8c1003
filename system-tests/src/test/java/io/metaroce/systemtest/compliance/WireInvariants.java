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

import io.metaroce.codec.RejectReason;
import io.metaroce.codec.WireDatagramReader;
import io.metaroce.codec.WireProtocol;
import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.CloseAckDecoder;
import io.metaroce.codec.wire.CloseDecoder;
import io.metaroce.codec.wire.CreditDecoder;
import io.metaroce.codec.wire.CreditRequestDecoder;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.ErrorDecoder;
import io.metaroce.codec.wire.NackDecoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.ProbeAckDecoder;
import io.metaroce.codec.wire.ProbeDecoder;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.StatusDecoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.TransportHeaderDecoder;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Requirements every datagram of the target must meet whatever the scenario, checked on each datagram the raw peer
 * receives: encapsulation (MR-ENC-1, 3, 4, 6, 8), headers (MR-HDR-1 to 5, 10, 11), ACK fields (MR-ACK-1, 2, 6), NACK
 * retry (MR-NACK-1), ERROR text (MR-ERR-3), STATUS size (MR-STAT-3) and SETUP modes (MR-SETUP-3). Each violation is
 * a line naming the requirement.
 */
final class WireInvariants
{
    private WireInvariants()
    {
    }

    static List<String> check(final Datagram d, final int mtu)
    {
        final List<String> violations = new ArrayList<>();
        if (d.templateId < 0)
        {
            violations.add("MR-VAL-1/MR-ENC-1: target sent an invalid datagram: " + RejectReason.name(-d.templateId));
            return violations;
        }
        final String what = " in " + d;
        check(violations, d.length <= WireProtocol.MAX_DATAGRAM_LENGTH, "MR-ENC-3: longer than 65507" + what);
        check(violations, d.length <= mtu, "MR-ENC-4: longer than the mtu " + mtu + what);
        check(violations, WireProtocol.SCHEMA_ID == d.schemaId(), "MR-HDR-1: schemaId" + what);
        check(violations, 1 == d.version(), "MR-HDR-2: version " + d.version() + what);
        check(violations, 0 == (d.flags() & (Flags.ECN_CE | Flags.PATH_SATURATED)), "MR-HDR-4: ECN flags" + what);
        check(violations, 0 == (d.flags() & ~Flags.allowed(d.templateId)),
            "MR-ENC-8: flags 0x" + Integer.toHexString(d.flags()) + what);

        final WireDatagramReader reader = d.read();
        final TransportHeaderDecoder header = reader.transportHeader();
        final TrafficClass trafficClass = header.trafficClass();
        if (DataDecoder.TEMPLATE_ID == d.templateId)
        {
            check(violations, TrafficClass.BULK == trafficClass || TrafficClass.LOW_LATENCY == trafficClass,
                "MR-HDR-5: DATA traffic class " + trafficClass);
        }
        else
        {
            check(violations, TrafficClass.CONTROL == trafficClass, "MR-HDR-5: traffic class " + trafficClass + what);
        }
        if (isUnsolicited(d.templateId))
        {
            check(violations, 0 == header.pathId() && 0 == header.pathSeq(), "MR-HDR-10: path fields" + what);
        }
        if (isOwnClock(d.templateId))
        {
            check(violations, (int)d.receivedNs - (int)header.tsNs() >= 0,
                "MR-HDR-11: tsNs after the datagram's arrival" + what);
        }
        checkFields(violations, reader, d, mtu);
        return violations;
    }

    private static void checkFields(
        final List<String> violations, final WireDatagramReader reader, final Datagram d, final int mtu)
    {
        final String what = " in " + d;
        switch (d.templateId)
        {
            case DataDecoder.TEMPLATE_ID:
            {
                final DataDecoder data = reader.data();
                check(violations, 0 == data.reserved1() && 0 == data.reserved2(), "MR-ENC-6: DATA reserved");
                break;
            }
            case AckDecoder.TEMPLATE_ID:
            {
                final AckDecoder ack = reader.ack();
                check(violations, 0 == (ack.sackBasePsn() & 63), "MR-ACK-1: sackBasePsn " + ack.sackBasePsn());
                check(violations, ack.rcvCwndPenalty() <= 127, "MR-ACK-6: rcvCwndPenalty " + ack.rcvCwndPenalty());
                check(violations, 0 == ack.reserved1(), "MR-ENC-6: ACK reserved1");
                check(violations, 0 == ack.ecnCeCount(), "MR-HDR-4: ACK ecnCeCount");
                check(violations, ack.sackWords().count() <= WireProtocol.MAX_SACK_WORDS, "MR-ACK-2: SACK words");
                break;
            }
            case NackDecoder.TEMPLATE_ID:
            {
                final NackDecoder nack = reader.nack();
                check(violations, 0 == nack.reserved1(), "MR-ENC-6: NACK reserved1");
                check(violations, 0 == nack.retryAfterUs() || NackReason.RX_OVERFLOW == nack.reason() ||
                    NackReason.NOT_READY == nack.reason(), "MR-NACK-1: retryAfterUs with " + nack.reason());
                break;
            }
            case CreditDecoder.TEMPLATE_ID:
                check(violations, 0 == reader.credit().reserved1(), "MR-ENC-6: CREDIT reserved1");
                break;
            case CreditRequestDecoder.TEMPLATE_ID:
                check(violations, 0 == reader.creditRequest().reserved1(), "MR-ENC-6: CREDIT_REQUEST reserved1");
                break;
            case ProbeDecoder.TEMPLATE_ID:
            {
                final ProbeDecoder probe = reader.probe();
                check(violations, 0 == probe.reserved1() && 0 == probe.reserved2(), "MR-ENC-6: PROBE reserved");
                break;
            }
            case ProbeAckDecoder.TEMPLATE_ID:
            {
                final ProbeAckDecoder probeAck = reader.probeAck();
                check(violations, 0 == probeAck.reserved1() && 0 == probeAck.reserved2() &&
                    0 == probeAck.reserved3(), "MR-ENC-6: PROBE_ACK reserved");
                break;
            }
            case SetupDecoder.TEMPLATE_ID:
                check(violations, 0 == (reader.setup().congestionModes().getRaw() & 0xFC),
                    "MR-SETUP-3: SETUP congestionModes " + reader.setup().congestionModes().getRaw());
                break;
            case SetupAckDecoder.TEMPLATE_ID:
            {
                final SetupAckDecoder setupAck = reader.setupAck();
                check(violations, 0 == setupAck.reserved1() && 0 == setupAck.reserved2(),
                    "MR-ENC-6: SETUP_ACK reserved");
                break;
            }
            case CloseDecoder.TEMPLATE_ID:
            {
                final CloseDecoder close = reader.close();
                check(violations, 0 == close.reserved1() && 0 == close.reserved2(), "MR-ENC-6: CLOSE reserved");
                break;
            }
            case CloseAckDecoder.TEMPLATE_ID:
            {
                final CloseAckDecoder closeAck = reader.closeAck();
                check(violations, 0 == closeAck.reserved1() && 0 == closeAck.reserved2(),
                    "MR-ENC-6: CLOSE_ACK reserved");
                break;
            }
            case StatusDecoder.TEMPLATE_ID:
            {
                final StatusDecoder status = reader.status();
                check(violations, 0 == status.reserved1() && 0 == status.reserved2(), "MR-ENC-6: STATUS reserved");
                final StatusDecoder.PathsDecoder paths = status.paths();
                final int count = paths.count();
                check(violations, count <= 256 && count <= (mtu - 64) / 16, "MR-STAT-3: " + count + " entries");
                while (paths.hasNext())
                {
                    check(violations, 0 == paths.next().reserved1(), "MR-ENC-6: STATUS entry reserved");
                }
                break;
            }
            case ErrorDecoder.TEMPLATE_ID:
            {
                final ErrorDecoder error = reader.error();
                check(violations, 0 == error.reserved1(), "MR-ENC-6: ERROR reserved1");
                final byte[] text = new byte[error.messageLength()];
                error.getMessage(text, 0, text.length);
                check(violations, text.length <= 1024 && isUtf8(text), "MR-ERR-3: ERROR text" + what);
                break;
            }
            default:
                break;
        }
    }

    private static boolean isUnsolicited(final int templateId)
    {
        return CreditDecoder.TEMPLATE_ID == templateId || CreditRequestDecoder.TEMPLATE_ID == templateId ||
            SetupDecoder.TEMPLATE_ID == templateId || CloseDecoder.TEMPLATE_ID == templateId ||
            StatusDecoder.TEMPLATE_ID == templateId;
    }

    private static boolean isOwnClock(final int templateId)
    {
        return DataDecoder.TEMPLATE_ID == templateId || ProbeDecoder.TEMPLATE_ID == templateId ||
            isUnsolicited(templateId);
    }

    static boolean isUtf8(final byte[] text)
    {
        try
        {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(text));
            return true;
        }
        catch (final CharacterCodingException ex)
        {
            return false;
        }
    }

    private static void check(final List<String> violations, final boolean condition, final String violation)
    {
        if (!condition)
        {
            violations.add(violation);
        }
    }
}
