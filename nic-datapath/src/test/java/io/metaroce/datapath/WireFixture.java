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

import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.WireDatagramReader;
import io.metaroce.codec.wire.AckEncoder;
import io.metaroce.codec.wire.CloseEncoder;
import io.metaroce.codec.wire.CloseReason;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.CreditRequestEncoder;
import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.DataEncoder;
import io.metaroce.codec.wire.ErrorEncoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.NackEncoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.ProbeEncoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.SetupAckEncoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.codec.wire.SetupEncoder;
import io.metaroce.codec.wire.StatusEncoder;
import io.metaroce.codec.wire.StreamAckDecoder;
import io.metaroce.codec.wire.StreamAckEncoder;
import io.metaroce.codec.wire.StreamCloseEncoder;
import io.metaroce.codec.wire.StreamCode;
import io.metaroce.codec.wire.StreamOpenDecoder;
import io.metaroce.codec.wire.StreamOpenEncoder;
import io.metaroce.codec.wire.StreamWindowEncoder;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.WireErrorCode;
import io.metaroce.datapath.connection.DatagramProxy;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.connection.SharedCreditScheduler;
import io.metaroce.datapath.connection.TransportFlag;
import io.metaroce.datapath.settings.Configuration;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.sim.SimulatedImage;
import io.metaroce.datapath.sim.SimulatedPublication;
import io.metaroce.datapath.sim.VirtualClock;
import io.metaroce.datapath.stream.ConnectionHandler;
import io.metaroce.datapath.stream.FramePlacement;
import io.metaroce.datapath.stream.ImageAdmission;
import io.metaroce.datapath.stream.ReceiverStream;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.TerminationCause;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One engine on a {@link ScriptedTransport} and a virtual clock; the test plays the peer with the encoders here and
 * inspects what the engine sent with a {@link WireDatagramReader}. Records stream events.
 * <p>
 * Playing a sender (the engine receives): {@link #establishReceiver()} sends SETUP and returns the connection id the
 * engine chose, {@link #openReceiverStream(int)} opens the default stream on it with STREAM_OPEN (streamRef
 * {@link #STREAM_REF}), after which DATA is placed. Playing a receiver (the engine sends): {@link #connectSender}
 * opens a stream and reads its SETUP, {@link #acceptSetup} answers SETUP_ACK (the stream then sends STREAM_OPEN),
 * {@link #acceptStream} answers STREAM_ACK(OPEN), after which DATA flows.
 */
final class WireFixture implements ConnectionHandler, ImageAdmission
{
    static final int STREAM_ID = 1001;
    static final int SESSION_ID = 0x1020_3040;
    static final int INITIAL_TERM_ID = 5;
    static final int TERM_LENGTH = 64 * 1024;
    static final int PEER_ID = 0x0102_0304;
    static final int RECEIVER_ID = 0x0A0B_0C0D;
    static final long EPOCH = 0x5EED_CAFE_F00D_0001L;
    static final int ISN = 0x7F3A_19C2;
    static final int STREAM_REF = 1;
    static final int REPLY_PORT = ScriptedTransport.PEER_PORT;

    final VirtualClock clock = new VirtualClock(1_000_000_000L);
    final ScriptedTransport transport;
    final TransportEngine engine;
    final SocketGroup group;
    final WireDatagramReader reader = new WireDatagramReader();
    final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(70_000));
    final MessageHeaderEncoder messageHeader = new MessageHeaderEncoder();
    final List<String> events = new ArrayList<>();

    // ImageAdmission
    final Map<Long, SimulatedImage> images = new HashMap<>();
    SimulatedImage image;
    boolean admit = true;
    boolean failImage;
    boolean shareImage;
    int notReadyAnswers;
    int imageRequests;
    int imageWindow = TERM_LENGTH / 2;
    long imageJoinPosition;

    // ConnectionHandler
    final Map<Long, SimulatedPublication> publications = new HashMap<>();
    final Map<Long, Long> acknowledged = new HashMap<>();
    final Map<Long, Integer> senderTerminations = new HashMap<>();
    final List<ReceiverStream> receiverStreamsEnded = new ArrayList<>();
    long ackedPosition = -1;
    int senderTermination = -1;
    int receiverTermination = -1;
    long endOfStreamPosition = -1;

    // The engine's SETUP, read by connectSender
    int senderIsn;
    /**
     * The tsNs of the sender's SETUP, which a SETUP_ACK echoes (the sender's first RTT sample).
     */
    int senderSetupTsNs;
    long senderEpoch;

    WireFixture(final int planes, final Consumer<EngineSettings.Builder> config)
    {
        this(planes, config, null);
    }

    WireFixture(
        final int planes, final Consumer<EngineSettings.Builder> config, final SharedCreditScheduler creditScheduler)
    {
        this(planes, config, creditScheduler, 4096);
    }

    WireFixture(
        final int planes,
        final Consumer<EngineSettings.Builder> config,
        final SharedCreditScheduler creditScheduler,
        final int counters)
    {
        transport = new ScriptedTransport(planes, 4);
        final TransportEngine.Context ctx = new TransportEngine.Context()
            .clock(clock)
            .random(new SplittableRandom(7))
            .transport(transport)
            .countersManager(new CountersManager(
                new UnsafeBuffer(ByteBuffer.allocateDirect(counters * 512)),
                new UnsafeBuffer(ByteBuffer.allocateDirect(counters * 128))))
            .connectionHandler(this)
            .imageAdmission(this);
        final EngineSettings.Builder settings = EngineSettings.builder();
        config.accept(settings);
        engine = new TransportEngine(ctx.settings(settings.build()).creditScheduler(creditScheduler));
        group = engine.defaultGroup();
    }

    /**
     * A second endpoint of the host's engine: its own scripted transport, registered with the host's engine as a
     * socket group whose handler and admission are this fixture. Drive it through the host's {@link #work()}.
     */
    WireFixture(final WireFixture host, final int planes)
    {
        transport = new ScriptedTransport(planes, 4);
        engine = host.engine;
        group = engine.addSocketGroup(new SocketGroup.Context()
            .transport(transport)
            .connectionHandler(this)
            .imageAdmission(this)
            .counterLabel("group=second"));
    }

    static long key(final int streamId, final int sessionId)
    {
        return SenderStream.streamKey(streamId, sessionId);
    }

    // ---------------------------------------------------------------- engine driving

    int work()
    {
        return engine.doWork();
    }

    void advance(final long nanos)
    {
        clock.advanceBy(nanos);
        engine.doWork();
    }

    List<ScriptedTransport.Sent> sent()
    {
        return transport.drain();
    }

    int read(final ScriptedTransport.Sent sent)
    {
        return reader.read(sent.datagram(), 0, sent.length());
    }

    List<ScriptedTransport.Sent> sentOfType(final List<ScriptedTransport.Sent> sent, final int templateId)
    {
        final List<ScriptedTransport.Sent> result = new ArrayList<>();
        for (final ScriptedTransport.Sent s : sent)
        {
            if (read(s) == templateId)
            {
                result.add(s);
            }
        }
        return result;
    }

    /**
     * The single datagram of a type among those sent, read into {@link #reader}.
     */
    ScriptedTransport.Sent single(final List<ScriptedTransport.Sent> sent, final int templateId)
    {
        final List<ScriptedTransport.Sent> ofType = sentOfType(sent, templateId);
        assertEquals(1, ofType.size(), "datagrams of template " + templateId);
        read(ofType.get(0));
        return ofType.get(0);
    }

    void inject(final int length, final int plane)
    {
        transport.inject(buffer, 0, length, plane);
    }

    void injectLatency(final int length, final int plane)
    {
        transport.injectLatency(buffer, 0, length, plane);
    }

    // ---------------------------------------------------------------- playing the sender: the engine receives

    /**
     * Send the default SETUP on plane 0 and return the id of the connection the engine set up.
     */
    int establishReceiver()
    {
        inject(setup((s) -> {}), 0);
        work();
        single(sent(), SetupAckDecoder.TEMPLATE_ID);
        return (int)reader.transportHeader().srcConnId();
    }

    /**
     * Open the default stream (streamRef {@link #STREAM_REF}) on a connection and check that it is answered OPEN.
     */
    void openReceiverStream(final int id)
    {
        inject(streamOpen(id, STREAM_REF, (o) -> {}), 0);
        work();
        single(sent(), StreamAckDecoder.TEMPLATE_ID);
        assertEquals(StreamCode.OPEN, reader.streamAck().code(), "the default stream opens");
    }

    /**
     * A connection with the default stream open on it.
     */
    int establishReceiverStream()
    {
        final int id = establishReceiver();
        openReceiverStream(id);
        return id;
    }

    int setup(final Consumer<SetupEncoder> customize)
    {
        return setup(customize, new byte[0]);
    }

    int setup(final Consumer<SetupEncoder> customize, final byte[] extensions)
    {
        final SetupEncoder setup = new SetupEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        DatagramProxy.header(setup.header(), 0, 0, TrafficClass.CONTROL, 0, 0, 0, PEER_ID, ISN, 0x1000);
        setup.connEpoch(EPOCH).mtu(1408).pathCount(8).planeCount((short)2);
        setup.congestionModes().clear().senderWindow(true).receiverCredit(true);
        setup.replyPort(REPLY_PORT).mprPsns(4096).initialCreditBytes(131_072).baseRttHintNs(0).linkRateMbps(0)
            .setupFlags(0).reserved1(0);
        customize.accept(setup);
        setup.putExtensions(extensions, 0, extensions.length);
        return DatagramProxy.length(setup);
    }

    int streamOpen(final int dstConnId, final int streamRef, final Consumer<StreamOpenEncoder> customize)
    {
        final StreamOpenEncoder open = new StreamOpenEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        DatagramProxy.header(open.header(), 0, 0, TrafficClass.CONTROL, 0, 0, dstConnId, PEER_ID, ISN,
            (int)clock.nanoTime());
        open.streamId(STREAM_ID).sessionId(SESSION_ID).initialTermId(INITIAL_TERM_ID).activeTermId(INITIAL_TERM_ID)
            .termOffset(0).termLength(TERM_LENGTH).streamRef(streamRef & 0xFFFF_FFFFL).reserved1(0);
        customize.accept(open);
        return DatagramProxy.length(open);
    }

    int streamOpen(final int dstConnId, final int streamId, final int sessionId, final int streamRef)
    {
        return streamOpen(dstConnId, streamRef, (o) -> o.streamId(streamId).sessionId(sessionId));
    }

    int streamClose(final int dstConnId, final int streamRef, final long finalPosition)
    {
        return streamClose(dstConnId, STREAM_ID, SESSION_ID, streamRef, finalPosition);
    }

    int streamClose(
        final int dstConnId, final int streamId, final int sessionId, final int streamRef, final long finalPosition)
    {
        final StreamCloseEncoder close = new StreamCloseEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        DatagramProxy.header(close.header(), 0, 0, TrafficClass.CONTROL, 0, 0, dstConnId, PEER_ID, ISN,
            (int)clock.nanoTime());
        close.streamId(streamId).sessionId(sessionId).streamRef(streamRef & 0xFFFF_FFFFL).reason(CloseReason.NORMAL)
            .reserved1(0).finalPosition(finalPosition);
        return DatagramProxy.length(close);
    }

    int data(
        final int dstConnId,
        final int psn,
        final int flags,
        final int plane,
        final int pathId,
        final int pathSeq,
        final long position,
        final int payloadLength)
    {
        return data(STREAM_ID, SESSION_ID, dstConnId, psn, flags, plane, pathId, pathSeq, position, payloadLength);
    }

    /**
     * A DATA of any stream carrying one frame of {@code payloadLength} bytes at a stream position.
     */
    int data(
        final int streamId,
        final int sessionId,
        final int dstConnId,
        final int psn,
        final int flags,
        final int plane,
        final int pathId,
        final int pathSeq,
        final long position,
        final int payloadLength)
    {
        final DataEncoder data = new DataEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        final int termId = INITIAL_TERM_ID + (int)(position / TERM_LENGTH);
        final int termOffset = (int)(position % TERM_LENGTH);
        DatagramProxy.header(data.header(), flags, plane, TrafficClass.BULK, pathId, pathSeq, dstConnId, PEER_ID,
            psn, (int)clock.nanoTime());
        data.streamId(streamId).sessionId(sessionId).termId(termId).termOffset(termOffset).backlogBytes(0)
            .ackEveryHint((short)0).reserved1((short)0).reserved2(0);
        final int frameLength = FrameDescriptor.HEADER_LENGTH + payloadLength;
        final int aligned = FrameDescriptor.alignedLength(frameLength);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[aligned]);
        writeFrame(frame, 0, frameLength, FrameDescriptor.UNFRAGMENTED, FrameDescriptor.TYPE_DATA, termId, termOffset,
            (byte)psn);
        frame.putInt(FrameDescriptor.SESSION_ID_OFFSET, sessionId, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.STREAM_ID_OFFSET, streamId, ByteOrder.LITTLE_ENDIAN);
        data.putPayload(frame, 0, aligned);
        return DatagramProxy.length(data);
    }

    int pad(final int dstConnId, final int psn, final int pathSeq, final long position, final int padLength)
    {
        final DataEncoder data = new DataEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        final int termId = INITIAL_TERM_ID + (int)(position / TERM_LENGTH);
        final int termOffset = (int)(position % TERM_LENGTH);
        DatagramProxy.header(data.header(), 0, 0, TrafficClass.BULK, 1, pathSeq, dstConnId, PEER_ID, psn,
            (int)clock.nanoTime());
        data.streamId(STREAM_ID).sessionId(SESSION_ID).termId(termId).termOffset(termOffset).backlogBytes(0)
            .ackEveryHint((short)0).reserved1((short)0).reserved2(0);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[FrameDescriptor.HEADER_LENGTH]);
        frame.putInt(FrameDescriptor.FRAME_LENGTH_OFFSET, padLength, ByteOrder.LITTLE_ENDIAN);
        frame.putByte(FrameDescriptor.VERSION_OFFSET, (byte)FrameDescriptor.CURRENT_VERSION);
        frame.putByte(FrameDescriptor.FLAGS_OFFSET, (byte)FrameDescriptor.UNFRAGMENTED);
        frame.putShort(FrameDescriptor.TYPE_OFFSET, (short)FrameDescriptor.TYPE_PAD, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.TERM_OFFSET_OFFSET, termOffset, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.SESSION_ID_OFFSET, SESSION_ID, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.STREAM_ID_OFFSET, STREAM_ID, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.TERM_ID_OFFSET, termId, ByteOrder.LITTLE_ENDIAN);
        data.putPayload(frame, 0, FrameDescriptor.HEADER_LENGTH);
        return DatagramProxy.length(data);
    }

    static void writeFrame(
        final MutableDirectBuffer frame,
        final int offset,
        final int frameLength,
        final int flags,
        final int type,
        final int termId,
        final int termOffset,
        final byte fill)
    {
        final int aligned = FrameDescriptor.alignedLength(frameLength);
        frame.setMemory(offset, aligned, (byte)0);
        frame.setMemory(offset + FrameDescriptor.HEADER_LENGTH, frameLength - FrameDescriptor.HEADER_LENGTH, fill);
        frame.putInt(offset + FrameDescriptor.FRAME_LENGTH_OFFSET, frameLength, ByteOrder.LITTLE_ENDIAN);
        frame.putByte(offset + FrameDescriptor.VERSION_OFFSET, (byte)FrameDescriptor.CURRENT_VERSION);
        frame.putByte(offset + FrameDescriptor.FLAGS_OFFSET, (byte)flags);
        frame.putShort(offset + FrameDescriptor.TYPE_OFFSET, (short)type, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(offset + FrameDescriptor.TERM_OFFSET_OFFSET, termOffset, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(offset + FrameDescriptor.SESSION_ID_OFFSET, SESSION_ID, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(offset + FrameDescriptor.STREAM_ID_OFFSET, STREAM_ID, ByteOrder.LITTLE_ENDIAN);
        frame.putInt(offset + FrameDescriptor.TERM_ID_OFFSET, termId, ByteOrder.LITTLE_ENDIAN);
    }

    int probe(final int dstConnId, final ProbeKind kind, final int flags, final int probeSeq, final int nextPsn)
    {
        final ProbeEncoder probe = new ProbeEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        DatagramProxy.header(probe.header(), flags, 0, TrafficClass.CONTROL, 3, 9, dstConnId, PEER_ID, nextPsn,
            0x4000_0001);
        probe.probeSeq(probeSeq).kind(kind).reserved1((short)0).reserved2(0);
        return DatagramProxy.length(probe);
    }

    int close(final int dstConnId, final int finalPsn)
    {
        final CloseEncoder close = new CloseEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        DatagramProxy.header(close.header(), TransportFlag.FIN, 0, TrafficClass.CONTROL, 0, 0, dstConnId, PEER_ID,
            finalPsn, 0x5000_0000);
        close.reason(CloseReason.NORMAL).reserved1(0).reserved2(0);
        return DatagramProxy.length(close);
    }

    int creditRequest(final int dstConnId, final long backlog)
    {
        return creditRequest(dstConnId, ISN, backlog);
    }

    int creditRequest(final int dstConnId, final int nextPsn, final long backlog)
    {
        final CreditRequestEncoder request = new CreditRequestEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        DatagramProxy.header(request.header(), 0, 0, TrafficClass.CONTROL, 0, 0, dstConnId, PEER_ID, nextPsn, 0);
        request.backlogBytes(backlog).creditTargetBytes(65_536).reserved1(0);
        return DatagramProxy.length(request);
    }

    int status(final int dstConnId, final int srcConnId)
    {
        final StatusEncoder status = new StatusEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        DatagramProxy.header(status.header(), 0, 0, TrafficClass.CONTROL, 0, 0, dstConnId, srcConnId, 0, 0);
        status.highestReceivedPsn(0).duplicatePackets(0).receivedBytes(0).maxReorderDistance(0).firstPathIndex(0)
            .state(ConnectionState.ESTABLISHED).reserved1((short)0).reserved2(0).pathsCount(0);
        return DatagramProxy.length(status);
    }

    int error(final int dstConnId, final int srcConnId, final int psn, final WireErrorCode code)
    {
        final ErrorEncoder error = new ErrorEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        DatagramProxy.header(error.header(), 0, 0, TrafficClass.CONTROL, 0, 0, dstConnId, srcConnId, psn, 0);
        error.code(code).reserved1(0).detail(0).message("test");
        return DatagramProxy.length(error);
    }

    // ---------------------------------------------------------------- playing the receiver: the engine sends

    /**
     * Open a stream on the engine's default group and read the SETUP it sends for its connection (into
     * {@link #senderIsn} and {@link #senderEpoch}).
     */
    SenderStream connectSender(final SenderSettings settings, final SimulatedPublication source)
    {
        publications.put(key(settings.streamId(), settings.sessionId()), source);
        final SenderStream stream = engine.openStream(settings, source);
        work();
        final List<ScriptedTransport.Sent> setups = sentOfType(sent(), SetupDecoder.TEMPLATE_ID);
        assertEquals(settings.planeCount(), setups.size(), "a SETUP on every plane");
        read(setups.get(0));
        senderIsn = (int)reader.transportHeader().psn();
        senderEpoch = reader.setup().connEpoch();
        senderSetupTsNs = (int)reader.transportHeader().tsNs();
        return stream;
    }

    /**
     * Answer the SETUP of a connection with a SETUP_ACK on plane 0: the connection is ESTABLISHED and its streams send
     * STREAM_OPEN, which this drains and returns.
     */
    List<ScriptedTransport.Sent> acceptSetup(
        final SenderConnection connection, final Consumer<SetupAckEncoder> customize)
    {
        return acceptSetup(connection, customize, new byte[0]);
    }

    /**
     * {@link #acceptSetup(SenderConnection, Consumer)} with a SETUP_ACK that carries extensions.
     */
    List<ScriptedTransport.Sent> acceptSetup(
        final SenderConnection connection, final Consumer<SetupAckEncoder> customize, final byte[] extensions)
    {
        inject(setupAck(connection.localConnectionId(), RECEIVER_ID, senderIsn, senderEpoch, customize, extensions),
            0);
        work();
        assertEquals(ConnectionState.ESTABLISHED, connection.state());
        return sentOfType(sent(), StreamOpenDecoder.TEMPLATE_ID);
    }

    /**
     * Answer a stream's STREAM_OPEN with STREAM_ACK(OPEN) on plane 0.
     */
    void acceptStream(final SenderStream stream, final long startPosition, final long windowLimit)
    {
        inject(streamAck(stream.connection().localConnectionId(), RECEIVER_ID, stream.streamId(), stream.sessionId(),
            stream.streamRef(), StreamCode.OPEN, 0, 0, startPosition, windowLimit), 0);
        work();
        assertEquals(ConnectionState.ESTABLISHED, stream.state());
    }

    int setupAck(
        final int dstConnId,
        final int srcConnId,
        final int isn,
        final long epoch,
        final Consumer<SetupAckEncoder> customize)
    {
        return setupAck(dstConnId, srcConnId, isn, epoch, customize, new byte[0]);
    }

    int setupAck(
        final int dstConnId,
        final int srcConnId,
        final int isn,
        final long epoch,
        final Consumer<SetupAckEncoder> customize,
        final byte[] extensions)
    {
        final SetupAckEncoder setupAck = new SetupAckEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        DatagramProxy.header(setupAck.header(), 0, 0, TrafficClass.CONTROL, 0, 0, dstConnId, srcConnId, isn,
            senderSetupTsNs);
        setupAck.connEpoch(epoch).initialGrantLimit(1 << 20).mprPsns(4096).mtu(1408);
        setupAck.congestionModes().clear().senderWindow(true).receiverCredit(true);
        setupAck.reserved1((short)0).linkRateMbps(0).setupFlags(0).reserved2(0)
            .maxStreams(Configuration.MAX_STREAMS_PER_CONNECTION_DEFAULT);
        customize.accept(setupAck);
        setupAck.putExtensions(extensions, 0, extensions.length);
        return DatagramProxy.length(setupAck);
    }

    int streamAck(
        final int dstConnId,
        final int srcConnId,
        final int streamId,
        final int sessionId,
        final int streamRef,
        final StreamCode code,
        final int retryAfterUs,
        final int detail,
        final long startPosition,
        final long windowLimit)
    {
        final StreamAckEncoder ack = new StreamAckEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        DatagramProxy.header(ack.header(), 0, 0, TrafficClass.CONTROL, 0, 0, dstConnId, srcConnId, 0, 0);
        ack.streamId(streamId).sessionId(sessionId).streamRef(streamRef & 0xFFFF_FFFFL).code(code)
            .reserved1((short)0).retryAfterUs(retryAfterUs).detail(detail & 0xFFFF_FFFFL).reserved2(0)
            .startPosition(startPosition).windowLimit(windowLimit);
        return DatagramProxy.length(ack);
    }

    /**
     * A STREAM_WINDOW with one entry per stream: {@code ids} holds streamId and sessionId pairs, {@code limits} one
     * window limit per pair.
     */
    int streamWindow(final int dstConnId, final int srcConnId, final int[] ids, final long... limits)
    {
        final StreamWindowEncoder window = new StreamWindowEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        DatagramProxy.header(window.header(), 0, 0, TrafficClass.CONTROL, 0, 0, dstConnId, srcConnId, 0, 0);
        window.reserved1(0);
        final StreamWindowEncoder.WindowsEncoder entries = window.windowsCount(limits.length);
        for (int i = 0; i < limits.length; i++)
        {
            entries.next().streamId(ids[2 * i]).sessionId(ids[2 * i + 1]).windowLimit(limits[i]);
        }
        return DatagramProxy.length(window);
    }

    int ack(
        final int dstConnId,
        final int srcConnId,
        final int cumAck,
        final int echoPlane,
        final int echoPath,
        final int echoPathSeq,
        final long echoTs,
        final int sackBase,
        final long... words)
    {
        return ackWithFlags(0, dstConnId, srcConnId, cumAck, echoPlane, echoPath, echoPathSeq, echoTs, sackBase, words);
    }

    int ackWithFlags(
        final int flags,
        final int dstConnId,
        final int srcConnId,
        final int cumAck,
        final int echoPlane,
        final int echoPath,
        final int echoPathSeq,
        final long echoTs,
        final int sackBase,
        final long... words)
    {
        final AckEncoder ack = new AckEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        DatagramProxy.header(ack.header(), flags, echoPlane, TrafficClass.CONTROL, echoPath, echoPathSeq, dstConnId,
            srcConnId, cumAck, (int)echoTs);
        ack.sackBasePsn(sackBase & 0xFFFF_FFFFL).serviceTimeNs(0).receivedBytes(0).grantLimit(1 << 20)
            .ecnCeCount((short)0).rxBufferLevel((short)0).rcvCwndPenalty((short)0).reserved1((short)0)
            .streamId(0).windowLimit(0).sessionId(0);
        final AckEncoder.SackWordsEncoder group = ack.sackWordsCount(words.length);
        for (final long word : words)
        {
            group.next().bits(word);
        }
        return DatagramProxy.length(ack);
    }

    /**
     * Set the stream window fields of the ACK last encoded into {@link #buffer}.
     */
    void ackWindow(final int streamId, final int sessionId, final long windowLimit)
    {
        new AckEncoder().wrap(buffer, MessageHeaderEncoder.ENCODED_LENGTH)
            .streamId(streamId).sessionId(sessionId).windowLimit(windowLimit);
    }

    /**
     * Set the grant limit of the ACK last encoded into {@link #buffer}.
     */
    void ackGrant(final long grantLimit)
    {
        new AckEncoder().wrap(buffer, MessageHeaderEncoder.ENCODED_LENGTH).grantLimit(grantLimit);
    }

    int nack(
        final int dstConnId,
        final int srcConnId,
        final int psn,
        final NackReason reason,
        final int retryAfterUs,
        final int cumAck)
    {
        final NackEncoder nack = new NackEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        DatagramProxy.header(nack.header(), 0, 0, TrafficClass.CONTROL, 0, 0, dstConnId, srcConnId, psn, 0);
        nack.reason(reason).reserved1((short)0).retryAfterUs(retryAfterUs).cumulativeAckPsn(cumAck & 0xFFFF_FFFFL)
            .grantLimit(1 << 20);
        return DatagramProxy.length(nack);
    }

    // ---------------------------------------------------------------- publications for sender tests

    SimulatedPublication publication(final int mtu)
    {
        return publication(STREAM_ID, SESSION_ID, mtu);
    }

    SimulatedPublication publication(final int streamId, final int sessionId, final int mtu)
    {
        final SimulatedPublication publication =
            new SimulatedPublication(streamId, sessionId, INITIAL_TERM_ID, TERM_LENGTH, 0, mtu, TERM_LENGTH / 2);
        publications.put(key(streamId, sessionId), publication);
        return publication;
    }

    SenderSettings senderSettings(final int destination, final int planes, final int pathsPerPlane)
    {
        return senderSettings(STREAM_ID, SESSION_ID, destination, planes, pathsPerPlane);
    }

    SenderSettings senderSettings(
        final int streamId, final int sessionId, final int destination, final int planes, final int pathsPerPlane)
    {
        return new SenderSettings().streamId(streamId).sessionId(sessionId).initialTermId(INITIAL_TERM_ID)
            .activeTermId(INITIAL_TERM_ID).termOffset(0).termLength(TERM_LENGTH).destination(destination)
            .planeCount(planes).pathsPerPlane(pathsPerPlane);
    }

    /**
     * The stream position a DATA the engine sent starts at (read into {@link #reader} first).
     */
    long position(final DataDecoder data)
    {
        return (long)(data.termId() - INITIAL_TERM_ID) * TERM_LENGTH + data.termOffset();
    }

    // ---------------------------------------------------------------- ConnectionHandler, ImageAdmission

    public FramePlacement onImageRequest(
        final int streamId,
        final int sessionId,
        final int initialTermId,
        final int activeTermId,
        final int termOffset,
        final int termLength,
        final int mtu,
        final InetSocketAddress source)
    {
        imageRequests++;
        if (!admit)
        {
            return null;
        }
        if (failImage)
        {
            throw new IllegalStateException("no space for the image");
        }
        if (notReadyAnswers > 0)
        {
            notReadyAnswers--;
            return NOT_READY;
        }
        if (shareImage && null != image)
        {
            return image;
        }
        image = new SimulatedImage(initialTermId, termLength,
            Math.max(imageJoinPosition, ((long)(activeTermId - initialTermId) * termLength) + termOffset), imageWindow);
        images.put(key(streamId, sessionId), image);
        return image;
    }

    public void onSenderEstablished(final SenderStream stream)
    {
        events.add("established " + stream.streamId() + "/" + stream.sessionId());
    }

    public void onSenderAcknowledged(final SenderStream stream, final long position)
    {
        ackedPosition = position;
        final long key = key(stream.streamId(), stream.sessionId());
        acknowledged.put(key, position);
        final SimulatedPublication publication = publications.get(key);
        if (null != publication)
        {
            publication.onAcknowledged(position);
        }
    }

    public void onSenderTerminated(final SenderStream stream, final int cause)
    {
        senderTermination = cause;
        senderTerminations.put(key(stream.streamId(), stream.sessionId()), cause);
        events.add("sender terminated " + stream.streamId() + "/" + stream.sessionId() + " " +
            TerminationCause.name(cause));
    }

    public void onReceiverEndOfStream(final ReceiverStream stream, final long finalPosition)
    {
        endOfStreamPosition = finalPosition;
        events.add("eos " + stream.streamId() + "/" + stream.sessionId() + " " + finalPosition);
    }

    public void onReceiverTerminated(final ReceiverStream stream, final int cause)
    {
        receiverTermination = cause;
        receiverStreamsEnded.add(stream);
        events.add("receiver terminated " + stream.streamId() + "/" + stream.sessionId() + " " +
            TerminationCause.name(cause));
    }
}
