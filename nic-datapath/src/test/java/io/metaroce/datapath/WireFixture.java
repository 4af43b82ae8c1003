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
import io.metaroce.codec.wire.CreditRequestEncoder;
import io.metaroce.codec.wire.DataEncoder;
import io.metaroce.codec.wire.ErrorEncoder;
import io.metaroce.codec.wire.MessageHeaderEncoder;
import io.metaroce.codec.wire.NackEncoder;
import io.metaroce.codec.wire.NackReason;
import io.metaroce.codec.wire.ProbeEncoder;
import io.metaroce.codec.wire.ProbeKind;
import io.metaroce.codec.wire.SetupAckEncoder;
import io.metaroce.codec.wire.SetupEncoder;
import io.metaroce.codec.wire.StatusEncoder;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.codec.wire.WireErrorCode;
import io.metaroce.datapath.sim.SimulatedImage;
import io.metaroce.datapath.sim.SimulatedPublication;
import io.metaroce.datapath.sim.VirtualClock;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * One engine on a {@link ScriptedTransport} and a virtual clock; the test plays the peer with the encoders here and
 * inspects what the engine sent with a {@link WireDatagramReader}. Records connection events.
 */
final class WireFixture implements ConnectionHandler, ImageAdmission
{
    static final int STREAM_ID = 1001;
    static final int SESSION_ID = 0x1020_3040;
    static final int INITIAL_TERM_ID = 5;
    static final int TERM_LENGTH = 64 * 1024;
    static final int PEER_ID = 0x0102_0304;
    static final long EPOCH = 0x5EED_CAFE_F00D_0001L;
    static final int ISN = 0x7F3A_19C2;

    final VirtualClock clock = new VirtualClock(1_000_000_000L);
    final ScriptedTransport transport;
    final TransportEngine engine;
    final SocketGroup group;
    final WireDatagramReader reader = new WireDatagramReader();
    final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(70_000));
    final MessageHeaderEncoder messageHeader = new MessageHeaderEncoder();
    final List<String> events = new ArrayList<>();
    final List<ReceiverConnection> receivers = new ArrayList<>();
    SimulatedImage image;
    boolean admit = true;
    int notReadyAnswers;
    int imageWindow = TERM_LENGTH / 2;
    long imageJoinPosition;
    long ackedPosition = -1;
    int senderTermination = -1;
    int receiverTermination = -1;
    long endOfStreamPosition = -1;

    WireFixture(final int planes, final Consumer<EngineSettings.Builder> config)
    {
        this(planes, config, null);
    }

    WireFixture(
        final int planes, final Consumer<EngineSettings.Builder> config, final SharedCreditScheduler creditScheduler)
    {
        transport = new ScriptedTransport(planes, 4);
        final TransportEngine.Context ctx = new TransportEngine.Context()
            .clock(clock)
            .random(new SplittableRandom(7))
            .transport(transport)
            .countersManager(new CountersManager(
                new UnsafeBuffer(ByteBuffer.allocateDirect(4096 * 512)),
                new UnsafeBuffer(ByteBuffer.allocateDirect(4096 * 128))))
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

    void inject(final int length, final int plane)
    {
        transport.inject(buffer, 0, length, plane);
    }

    // ---------------------------------------------------------------- messages a peer sends

    int setup(final Consumer<SetupEncoder> customize)
    {
        final SetupEncoder setup = new SetupEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        DatagramProxy.header(setup.header(), 0, 0, TrafficClass.CONTROL, 0, 0, 0, PEER_ID, ISN, 0x1000);
        setup.streamId(STREAM_ID).sessionId(SESSION_ID).initialTermId(INITIAL_TERM_ID).activeTermId(INITIAL_TERM_ID)
            .termOffset(0).termLength(TERM_LENGTH).connEpoch(EPOCH).mtu(1408).pathCount(8).planeCount((short)2);
        setup.congestionModes().clear().senderWindow(true).receiverCredit(true);
        setup.replyPort(40_999).mprPsns(4096).initialCreditBytes(131_072).baseRttHintNs(0).linkRateMbps(0);
        customize.accept(setup);
        return DatagramProxy.length(setup);
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
        final DataEncoder data = new DataEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        final int termId = INITIAL_TERM_ID + (int)(position / TERM_LENGTH);
        final int termOffset = (int)(position % TERM_LENGTH);
        DatagramProxy.header(data.header(), flags, plane, TrafficClass.BULK, pathId, pathSeq, dstConnId, PEER_ID,
            psn, (int)clock.nanoTime());
        data.streamId(STREAM_ID).sessionId(SESSION_ID).termId(termId).termOffset(termOffset).backlogBytes(0)
            .ackEveryHint((short)0).reserved1((short)0).reserved2(0);
        final int frameLength = FrameDescriptor.HEADER_LENGTH + payloadLength;
        final int aligned = FrameDescriptor.alignedLength(frameLength);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[aligned]);
        writeFrame(frame, 0, frameLength, FrameDescriptor.UNFRAGMENTED, FrameDescriptor.TYPE_DATA, termId, termOffset,
            (byte)psn);
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

    int close(final int dstConnId, final int finalPsn, final long finalPosition)
    {
        final CloseEncoder close = new CloseEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        DatagramProxy.header(close.header(), TransportFlag.FIN, 0, TrafficClass.CONTROL, 0, 0, dstConnId, PEER_ID,
            finalPsn, 0x5000_0000);
        close.finalPosition(finalPosition).reason(CloseReason.NORMAL).reserved1(0).reserved2(0);
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

    int setupAck(
        final int dstConnId,
        final int srcConnId,
        final int isn,
        final long epoch,
        final Consumer<SetupAckEncoder> customize)
    {
        final SetupAckEncoder setupAck = new SetupAckEncoder().wrapAndApplyHeader(buffer, 0, messageHeader);
        DatagramProxy.header(setupAck.header(), 0, 0, TrafficClass.CONTROL, 0, 0, dstConnId, srcConnId, isn, 0);
        setupAck.streamId(STREAM_ID).sessionId(SESSION_ID).connEpoch(epoch).initialGrantLimit(1 << 20)
            .mprPsns(4096).mtu(1408);
        setupAck.congestionModes().clear().senderWindow(true).receiverCredit(true);
        setupAck.reserved1((short)0).linkRateMbps(0).reserved2(0);
        customize.accept(setupAck);
        return DatagramProxy.length(setupAck);
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
            .ecnCeCount((short)0).rxBufferLevel((short)0).rcvCwndPenalty((short)0).reserved1((short)0);
        final AckEncoder.SackWordsEncoder group = ack.sackWordsCount(words.length);
        for (final long word : words)
        {
            group.next().bits(word);
        }
        return DatagramProxy.length(ack);
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

    // ---------------------------------------------------------------- a publication for sender tests

    SimulatedPublication publication(final int mtu)
    {
        return new SimulatedPublication(STREAM_ID, SESSION_ID, INITIAL_TERM_ID, TERM_LENGTH, 0, mtu, TERM_LENGTH / 2);
    }

    SenderSettings senderSettings(final int destination, final int planes, final int pathsPerPlane)
    {
        return new SenderSettings().streamId(STREAM_ID).sessionId(SESSION_ID).initialTermId(INITIAL_TERM_ID)
            .activeTermId(INITIAL_TERM_ID).termOffset(0).termLength(TERM_LENGTH).destination(destination)
            .planeCount(planes).pathsPerPlane(pathsPerPlane);
    }

    // ---------------------------------------------------------------- ConnectionHandler, ImageAdmission

    public FramePlacement onImageRequest(
        final int streamId,
        final int sessionId,
        final int initialTermId,
        final int activeTermId,
        final int termOffset,
        final int termLength,
        final int mtu)
    {
        if (!admit)
        {
            return null;
        }
        if (notReadyAnswers > 0)
        {
            notReadyAnswers--;
            return NOT_READY;
        }
        image = new SimulatedImage(initialTermId, termLength,
            Math.max(imageJoinPosition, ((long)(activeTermId - initialTermId) * termLength) + termOffset), imageWindow);
        return image;
    }

    public void onSenderEstablished(final SenderConnection connection)
    {
        events.add("established");
    }

    public void onSenderAcknowledged(final SenderConnection connection, final long position)
    {
        ackedPosition = position;
    }

    public void onSenderTerminated(final SenderConnection connection, final int cause)
    {
        senderTermination = cause;
        events.add("sender terminated " + TerminationCause.name(cause));
    }

    public void onReceiverEndOfStream(final ReceiverConnection connection, final long finalPosition)
    {
        endOfStreamPosition = finalPosition;
        events.add("eos " + finalPosition);
    }

    public void onReceiverTerminated(final ReceiverConnection connection, final int cause)
    {
        receiverTermination = cause;
        events.add("receiver terminated " + TerminationCause.name(cause));
    }
}
