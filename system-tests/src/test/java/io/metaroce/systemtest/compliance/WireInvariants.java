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
import io.metaroce.codec.SetupExtensions;
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
import io.metaroce.codec.wire.StreamAckDecoder;
import io.metaroce.codec.wire.StreamCloseDecoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenDecoder;
import io.metaroce.codec.wire.StreamWindowDecoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.TransportHeaderDecoder;
import io.metaroce.codec.wire.WireErrorCode;

import java.nio.ByteOrder;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Requirements every datagram of the target must meet whatever the scenario, checked on each datagram the raw peer
 * receives: encapsulation (MR-ENC-1, 3, 4, 6, 8), headers (MR-HDR-1 to 5, 10, 11), ACK fields (MR-ACK-1, 2, 6, 17,
 * and the zeros of MR-ACK-18), NACK retry (MR-NACK-1), ERROR text (MR-ERR-3), STATUS size (MR-STAT-3), SETUP modes,
 * flags, extensions and length (MR-SETUP-3, MR-EXT-1, 4, 7, 8: no extension but one LATENCY_QUEUE(0), MR-CLASS-1),
 * SETUP_ACK flags, maxStreams, extensions and length (MR-EXT-4, MR-EXT-6, MR-SETUP-13: no extension but the
 * LATENCY_QUEUE answer to a SETUP that asked for it, naming a port and sent from it, MR-CLASS-3), the fields of each
 * STREAM_ACK code (MR-STRM-15, MR-STRM-13, MR-STRM-14), STREAM_WINDOW size (MR-STRM-22), version 2 templates only
 * (MR-VER-6) and the version 1 ERROR that answers a version 1 SETUP (MR-HDR-2, MR-VER-7). Each violation is a line
 * naming the requirement.
 */
final class WireInvariants
{
    /**
     * Bytes of the HANDSHAKE value of a SETUP_ACK: Noise IK message 2 (section 18.6).
     */
    static final int SETUP_ACK_HANDSHAKE_VALUE_LENGTH = 80;

    private WireInvariants()
    {
    }

    /**
     * The violations of a datagram.
     *
     * @param maxAgeNs how long ago, at most, the datagram can have been sent: since its socket was last drained.
     */
    static List<String> check(final Datagram d, final int mtu, final long maxAgeNs, final RawPeer peer)
    {
        final List<String> violations = new ArrayList<>();
        if (d.templateId < 0)
        {
            violations.add("MR-VAL-1/MR-ENC-1: target sent an invalid datagram: " + RejectReason.name(-d.templateId) +
                " in " + d);
            return violations;
        }
        final String what = " in " + d;
        check(violations, d.length <= WireProtocol.MAX_DATAGRAM_LENGTH, "MR-ENC-3: longer than 65507" + what);
        check(violations, d.length <= mtu, "MR-ENC-4: longer than the mtu " + mtu + what);
        check(violations, WireProtocol.SCHEMA_ID == d.schemaId(), "MR-HDR-1: schemaId" + what);
        if (d.isVersion1)
        {
            check(violations, ErrorDecoder.TEMPLATE_ID == d.templateId && peer.sentVersion1Setup(d.dstConnId()),
                "MR-HDR-2: a version 1 message that answers no version 1 SETUP" + what);
        }
        else
        {
            check(violations, WireProtocol.VERSION == d.version(), "MR-HDR-2: version " + d.version() + what);
        }
        check(violations, d.templateId >= 1 && d.templateId <= 17, "MR-VER-6: template " + d.templateId + what);
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
            check(violations, header.planeId() == d.plane, "MR-HDR-10: planeId " + header.planeId() + what);
        }
        if (isOwnClock(d.templateId) && maxAgeNs < Integer.MAX_VALUE)
        {
            // The target's clock is this host's: its tsNs is the time of sending, before arrival and not before the
            // socket's previous drain (a 32-bit clock, so only within 2 s).
            final long ageNs = ((int)d.receivedNs - (int)header.tsNs()) & 0xFFFF_FFFFL;
            check(violations, ageNs <= maxAgeNs,
                "MR-HDR-11: tsNs " + ageNs + " ns before the arrival, the socket drained " + maxAgeNs + " ns before" +
                what);
        }
        checkConnectionMessages(violations, reader, d, peer);
        checkStreamMessages(violations, reader, d, mtu);
        checkOtherMessages(violations, reader, d, mtu);
        return violations;
    }

    private static void checkConnectionMessages(
        final List<String> violations, final WireDatagramReader reader, final Datagram d, final RawPeer peer)
    {
        switch (d.templateId)
        {
            case SetupDecoder.TEMPLATE_ID:
            {
                final SetupDecoder setup = reader.setup();
                final int modes = setup.congestionModes().getRaw();
                final int setupFlags = setup.setupFlags();
                final int reserved = setup.reserved1();
                final int mtu = setup.mtu();
                final int extensions = setup.extensionsLength();
                check(violations, 0 == (modes & 0xFC), "MR-SETUP-3: SETUP congestionModes " + modes);
                check(violations, 0 == setupFlags, "MR-EXT-4: SETUP setupFlags " + setupFlags);
                check(violations, 0 == reserved, "MR-ENC-6: SETUP reserved1");
                // The one extension defined: LATENCY_QUEUE, value 0, in the SETUP of a LOW_LATENCY connection.
                final int latencyQueue = d.latencyQueue();
                check(violations, 0 == extensions || 0 == latencyQueue, "MR-EXT-7/MR-CLASS-1: SETUP extensions of " +
                    extensions + " bytes that are not one LATENCY_QUEUE(0): " + Arrays.toString(d.extensions()));
                check(violations, d.length <= mtu, "MR-EXT-8: SETUP of " + d.length + " bytes, mtu " + mtu);
                break;
            }
            case SetupAckDecoder.TEMPLATE_ID:
            {
                final SetupAckDecoder setupAck = reader.setupAck();
                check(violations, 0 == setupAck.reserved1() && 0 == setupAck.reserved2(),
                    "MR-ENC-6: SETUP_ACK reserved");
                // an authenticated SETUP is answered with the flag and HANDSHAKE (message 2) last [MR-SEC-7]
                final boolean authenticated = peer.setupAuthenticated(d.dstConnId(), d.psn());
                check(violations, (authenticated ? SetupExtensions.SETUP_FLAG_AUTHENTICATED : 0) ==
                    setupAck.setupFlags(), "MR-EXT-4/MR-SEC-7: SETUP_ACK setupFlags " + setupAck.setupFlags());
                check(violations, setupAck.maxStreams() >= 1, "MR-SETUP-13: maxStreams " + setupAck.maxStreams());
                check(violations, 0 == (setupAck.congestionModes().getRaw() & 0xFC), "MR-SETUP-10: SETUP_ACK modes");
                final int handshake = authenticated ? 4 + SETUP_ACK_HANDSHAKE_VALUE_LENGTH : 0;
                final int extensions = setupAck.extensionsLength() - handshake;
                check(violations, !authenticated || (extensions >= 0 &&
                    SetupExtensions.HANDSHAKE == (d.buffer.getShort(d.length - handshake, ByteOrder.LITTLE_ENDIAN) &
                    0xFFFF) && SETUP_ACK_HANDSHAKE_VALUE_LENGTH ==
                    (d.buffer.getShort(d.length - handshake + 2, ByteOrder.LITTLE_ENDIAN) & 0xFFFF)),
                    "MR-SEC-7: SETUP_ACK to an authenticated SETUP without HANDSHAKE of 80 bytes last");
                final int latencyPort = d.latencyQueue();
                check(violations, 0 == extensions || latencyPort > 0, "MR-EXT-6/MR-CLASS-3: SETUP_ACK extensions " +
                    "that are not one LATENCY_QUEUE with a port: " + Arrays.toString(d.extensions()));
                final Boolean asked = peer.setupAskedLatencyQueue(d.dstConnId(), d.psn());
                check(violations, 0 == extensions || null == asked || asked,
                    "MR-EXT-6: SETUP_ACK answers a LATENCY_QUEUE its SETUP did not carry");
                check(violations, latencyPort <= 0 || d.source.getPort() == latencyPort,
                    "MR-CLASS-3: SETUP_ACK naming latency port " + latencyPort + " sent from " + d.source);
                final int setupLength = peer.setupLength(d.dstConnId(), d.psn());
                check(violations, setupLength < 0 || d.length <= setupLength,
                    "MR-EXT-6/MR-SEC-1: SETUP_ACK of " + d.length + " bytes answers a SETUP of " + setupLength);
                break;
            }
            case CloseDecoder.TEMPLATE_ID:
            {
                final CloseDecoder close = reader.close();
                check(violations, 0 == close.reserved1() && 0 == close.reserved2(), "MR-ENC-6: CLOSE reserved");
                check(violations, d.hasFlag(Flags.FIN), "MR-CLOSE-1: CLOSE without fin");
                break;
            }
            case CloseAckDecoder.TEMPLATE_ID:
            {
                final CloseAckDecoder closeAck = reader.closeAck();
                check(violations, 0 == closeAck.reserved1() && 0 == closeAck.reserved2(),
                    "MR-ENC-6: CLOSE_ACK reserved");
                check(violations, 0 == d.pathId() && 0 == d.pathSeq(),
                    "MR-CLOSE-7: a CLOSE_ACK echoes a CLOSE's path fields, which are 0, in " + d);
                break;
            }
            case ErrorDecoder.TEMPLATE_ID:
            {
                final ErrorDecoder error = reader.error();
                final int reserved = error.reserved1();
                final WireErrorCode code = error.code();
                final long detail = error.detail();
                final byte[] text = new byte[error.messageLength()];
                error.getMessage(text, 0, text.length);
                check(violations, 0 == reserved, "MR-ENC-6: ERROR reserved1");
                check(violations, text.length <= 1024 && isUtf8(text), "MR-ERR-3: ERROR text in " + d);
                if (d.isVersion1)
                {
                    check(violations, WireErrorCode.UNSUPPORTED_VERSION == code && 2 == detail && 0 == d.srcConnId(),
                        "MR-VER-7: version 1 ERROR " + code + " detail " + detail);
                    check(violations, 32 == d.blockLength(), "MR-VER-7: version 1 ERROR blockLength");
                    check(violations, d.length <= WireWriter.VERSION_1_SETUP_LENGTH,
                        "MR-SEC-1: version 1 ERROR of " + d.length + " bytes");
                }
                break;
            }
            default:
                break;
        }
    }

    private static void checkStreamMessages(
        final List<String> violations, final WireDatagramReader reader, final Datagram d, final int mtu)
    {
        switch (d.templateId)
        {
            case StreamOpenDecoder.TEMPLATE_ID:
                check(violations, 0 == reader.streamOpen().reserved1(), "MR-ENC-6: STREAM_OPEN reserved1");
                break;
            case StreamCloseDecoder.TEMPLATE_ID:
                check(violations, 0 == reader.streamClose().reserved1(), "MR-ENC-6: STREAM_CLOSE reserved1");
                break;
            case StreamAckDecoder.TEMPLATE_ID:
                checkStreamAck(violations, reader.streamAck(), d);
                break;
            case StreamWindowDecoder.TEMPLATE_ID:
            {
                final StreamWindowDecoder window = reader.streamWindow();
                check(violations, 0 == window.reserved1(), "MR-ENC-6: STREAM_WINDOW reserved1");
                final int count = window.windows().count();
                check(violations, count >= 1 && count <= 256 && count <= (mtu - 40) / 16,
                    "MR-STRM-22: STREAM_WINDOW of " + count + " entries, mtu " + mtu);
                break;
            }
            default:
                break;
        }
    }

    /**
     * The fields of a STREAM_ACK as its code says (section 7.15): retryAfterUs only with CONFLICT, detail only with
     * INVALID_PARAMETER, startPosition only with OPEN, windowLimit only with OPEN and CLOSED.
     */
    private static void checkStreamAck(final List<String> violations, final StreamAckDecoder ack, final Datagram d)
    {
        final StreamCode code = ack.code();
        final int retryAfterUs = ack.retryAfterUs();
        final long detail = ack.detail();
        final long startPosition = ack.startPosition();
        final long windowLimit = ack.windowLimit();
        final String what = " in STREAM_ACK(" + code + ") " + d;
        check(violations, 0 == ack.reserved1() && 0 == ack.reserved2(), "MR-ENC-6: STREAM_ACK reserved");
        check(violations, 0 == retryAfterUs || StreamCode.CONFLICT == code,
            (StreamCode.NOT_READY == code ? "MR-STRM-13" : "MR-STRM-15") + ": retryAfterUs " + retryAfterUs + what);
        check(violations, 0 == detail || StreamCode.INVALID_PARAMETER == code, "MR-STRM-15: detail " + detail + what);
        if (StreamCode.OPEN == code)
        {
            check(violations, startPosition >= 0 && 0 == (startPosition & 31),
                "MR-STRM-14: startPosition " + startPosition + what);
            check(violations, windowLimit > startPosition, "MR-STRM-14: windowLimit " + windowLimit + what);
        }
        else
        {
            check(violations, 0 == startPosition, "MR-STRM-15: startPosition " + startPosition + what);
            check(violations, 0 == windowLimit || StreamCode.CLOSED == code,
                "MR-STRM-15: windowLimit " + windowLimit + what);
        }
    }

    private static void checkOtherMessages(
        final List<String> violations, final WireDatagramReader reader, final Datagram d, final int mtu)
    {
        switch (d.templateId)
        {
            case DataDecoder.TEMPLATE_ID:
            {
                final DataDecoder data = reader.data();
                check(violations, 0 == data.reserved1() && 0 == data.reserved2(), "MR-ENC-6: DATA reserved");
                break;
            }
            case AckDecoder.TEMPLATE_ID:
                checkAck(violations, reader.ack(), d);
                break;
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
            default:
                break;
        }
    }

    private static void checkAck(final List<String> violations, final AckDecoder ack, final Datagram d)
    {
        // Read every header field first: the datagram's accessors wrap the decoders again.
        final int cumAck = d.psn();
        final long base = d.read().ack().sackBasePsn();
        check(violations, 0 == (base & 63), "MR-ACK-1: sackBasePsn " + base);
        check(violations, ack.rcvCwndPenalty() <= 127, "MR-ACK-6: rcvCwndPenalty " + ack.rcvCwndPenalty());
        check(violations, 0 == ack.reserved1(), "MR-ENC-6: ACK reserved1");
        check(violations, 0 == ack.ecnCeCount(), "MR-HDR-4: ACK ecnCeCount");
        final long windowLimit = ack.windowLimit();
        final int streamId = ack.streamId();
        final int sessionId = ack.sessionId();
        check(violations, 0 != windowLimit || (0 == streamId && 0 == sessionId),
            "MR-ACK-18: stream " + streamId + " session " + sessionId + " without a window limit in " + d);
        final AckDecoder.SackWordsDecoder words = ack.sackWords();
        final int count = words.count();
        check(violations, count <= WireProtocol.MAX_SACK_WORDS, "MR-ACK-2: SACK words");
        for (int w = 0; w < count; w++)
        {
            final long bits = words.next().bits();
            for (int bit = 0; bit < 64; bit++)
            {
                final int psn = (int)base + 64 * w + bit;
                if (0 != (bits & (1L << bit)) && psn - cumAck < 0)
                {
                    violations.add("MR-ACK-17: SACK bit of PSN " + psn + " before cumAck " + cumAck + " (base " +
                        base + ", word " + w + " 0x" + Long.toHexString(bits) + ") in " + d);
                    return;
                }
            }
        }
    }

    private static boolean isUnsolicited(final int templateId)
    {
        return CreditDecoder.TEMPLATE_ID == templateId || CreditRequestDecoder.TEMPLATE_ID == templateId ||
            SetupDecoder.TEMPLATE_ID == templateId || CloseDecoder.TEMPLATE_ID == templateId ||
            StatusDecoder.TEMPLATE_ID == templateId || StreamOpenDecoder.TEMPLATE_ID == templateId ||
            StreamAckDecoder.TEMPLATE_ID == templateId || StreamCloseDecoder.TEMPLATE_ID == templateId ||
            StreamWindowDecoder.TEMPLATE_ID == templateId;
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
