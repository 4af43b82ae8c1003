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

import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.SetupDecoder;
import io.metaroce.datapath.connection.Connection;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.io.ForwardingPacketTransport;
import io.metaroce.datapath.io.PacketHandler;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.security.ConnectionAuth;
import io.metaroce.datapath.security.PacketOpener;
import io.metaroce.datapath.security.PacketSealer;
import io.metaroce.datapath.security.ReplayWindows;
import io.metaroce.datapath.security.SealTrailerDescriptor;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The engine's datagram boundary for authenticated connections: every datagram of a keyed connection is sealed after
 * it is encoded and opened before it is decoded, SETUP and SETUP_ACK excepted, which carry the handshake. The
 * connection is found by the local id a datagram names: srcConnId going out, dstConnId coming in. The clear part is
 * the messageHeader and fixed block ({@code 8 + blockLength}), the rest is the body; the lane is the header's pathId
 * modulo 256, so each path has its own counter and replay window, and a datagram sealed on another lane is dropped
 * (NO_SUCH_LANE) before it is opened. A datagram that does not open is dropped, counted
 * by reason, answered by nothing, and never reaches the engine.
 * <p>
 * Works on two heap staging arrays (one each way) because the JDK's AES-GCM is fastest there; a sealed DATA is then
 * copied to a slot of a direct ring that stays untouched until the wrapped transport flushes, so that a batching
 * transport still sends a duty cycle's DATA together. The staging copies allocate nothing, the JDK's cipher does (see
 * the security package).
 */
final class SealingTransport extends ForwardingPacketTransport
{
    private static final int MESSAGE_HEADER_LENGTH = 8;
    private static final int PATH_ID_OFFSET = 12;
    private static final int DST_CONN_ID_OFFSET = 16;
    private static final int SRC_CONN_ID_OFFSET = 20;
    private static final int CLEAR_MINIMUM = 32;
    private static final int STAGING_LENGTH = 65_536 + SealTrailerDescriptor.TRAILER_LENGTH;
    private static final int RING_SLOTS = 256;
    private static final int SLOT_LENGTH = 2048;

    private final Int2ObjectHashMap<Connection> connectionsById;
    private final FreedKeyedIds freedKeyedIds;
    private final TransportEngine engine;
    private final byte[] sendStaging = new byte[STAGING_LENGTH];
    private final UnsafeBuffer sendBuffer = new UnsafeBuffer(sendStaging);
    private final byte[] receiveStaging = new byte[STAGING_LENGTH];
    private final UnsafeBuffer receiveBuffer = new UnsafeBuffer(receiveStaging);
    private final ByteBuffer ringMemory = ByteBuffer.allocateDirect(RING_SLOTS * SLOT_LENGTH);
    private final UnsafeBuffer ring = new UnsafeBuffer(ringMemory);
    private int ringCursor;
    private int sentOnWrap;
    private final PacketHandler opening = this::onDatagram;
    private PacketHandler handler;

    SealingTransport(
        final PacketTransport delegate,
        final Int2ObjectHashMap<Connection> connectionsById,
        final FreedKeyedIds freedKeyedIds,
        final TransportEngine engine)
    {
        super(delegate);
        this.connectionsById = connectionsById;
        this.freedKeyedIds = freedKeyedIds;
        this.engine = engine;
    }

    /**
     * Bytes of the trailer every sealed datagram carries, on top of the wrapped transport's overhead.
     */
    public int datagramOverhead()
    {
        return delegate.datagramOverhead() + SealTrailerDescriptor.TRAILER_LENGTH;
    }

    public int poll(final PacketHandler handler, final int limit)
    {
        this.handler = handler;
        return delegate.poll(opening, limit);
    }

    public int pollLatency(final PacketHandler handler, final int limit)
    {
        this.handler = handler;
        return delegate.pollLatency(opening, limit);
    }

    public int send(
        final int destination,
        final int plane,
        final int entropy,
        final DirectBuffer header,
        final int headerOffset,
        final int headerLength,
        final DirectBuffer payload,
        final int payloadOffset,
        final int payloadLength)
    {
        final PacketSealer sealer = sealer(header, headerOffset, headerLength);
        if (null == sealer)
        {
            return delegate.send(destination, plane, entropy, header, headerOffset, headerLength, payload,
                payloadOffset, payloadLength);
        }
        final int length = headerLength + payloadLength;
        if (length + SealTrailerDescriptor.TRAILER_LENGTH > STAGING_LENGTH)
        {
            return SEND_ERROR;
        }
        header.getBytes(headerOffset, sendStaging, 0, headerLength);
        if (payloadLength > 0)
        {
            payload.getBytes(payloadOffset, sendStaging, headerLength, payloadLength);
        }
        final int sealed = seal(sealer, length);
        if (sealed < 0)
        {
            return SEND_ERROR;
        }
        if (sealed > SLOT_LENGTH || sealed <= headerLength)
        {
            return delegate.send(destination, plane, entropy, sendBuffer, 0, sealed, sendBuffer, sealed, 0);
        }
        // A batching transport keeps a reference to the payload until it flushes: each sealed DATA gets a slot of
        // its own in direct memory, so that a duty cycle's DATA still leave together (sendmmsg, segmentation
        // offload); slots are reused only after everything queued went out.
        if (RING_SLOTS == ringCursor)
        {
            // the duty cycle's flush reports these too, so that its work count holds every datagram it sent
            sentOnWrap += delegate.flush();
            ringCursor = 0;
        }
        final int slot = ringCursor++ * SLOT_LENGTH;
        ring.putBytes(slot, sendStaging, 0, sealed);
        return delegate.send(destination, plane, entropy, ring, slot, headerLength, ring, slot + headerLength,
            sealed - headerLength);
    }

    /**
     * Flush the wrapped transport and free the ring's slots.
     *
     * @return datagrams sent by this flush and by the flushes that made room in the ring since the last one.
     */
    public int flush()
    {
        final int sent = sentOnWrap + delegate.flush();
        sentOnWrap = 0;
        ringCursor = 0;
        return sent;
    }

    public int sendControl(
        final int destination, final int plane, final DirectBuffer buffer, final int offset, final int length)
    {
        final PacketSealer sealer = sealer(buffer, offset, length);
        if (null == sealer)
        {
            return delegate.sendControl(destination, plane, buffer, offset, length);
        }
        final int sealed = stageAndSeal(sealer, buffer, offset, length);
        return sealed < 0 ? SEND_ERROR : delegate.sendControl(destination, plane, sendBuffer, 0, sealed);
    }

    public int sendControl(
        final int queue,
        final int destination,
        final int plane,
        final DirectBuffer buffer,
        final int offset,
        final int length)
    {
        final PacketSealer sealer = sealer(buffer, offset, length);
        if (null == sealer)
        {
            return delegate.sendControl(queue, destination, plane, buffer, offset, length);
        }
        final int sealed = stageAndSeal(sealer, buffer, offset, length);
        return sealed < 0 ? SEND_ERROR : delegate.sendControl(queue, destination, plane, sendBuffer, 0, sealed);
    }

    public int sendToSource(final int port, final DirectBuffer buffer, final int offset, final int length)
    {
        final PacketSealer sealer = sealer(buffer, offset, length);
        if (null == sealer)
        {
            return delegate.sendToSource(port, buffer, offset, length);
        }
        final int sealed = stageAndSeal(sealer, buffer, offset, length);
        return sealed < 0 ? SEND_ERROR : delegate.sendToSource(port, sendBuffer, 0, sealed);
    }

    private void onDatagram(final DirectBuffer buffer, final int offset, final int length, final int plane)
    {
        final PacketHandler handler = this.handler;
        if (length < CLEAR_MINIMUM || isHandshake(buffer, offset))
        {
            handler.onDatagram(buffer, offset, length, plane);
            return;
        }
        final int localId = buffer.getInt(offset + DST_CONN_ID_OFFSET, ByteOrder.LITTLE_ENDIAN);
        final Connection connection = connectionsById.get(localId);
        if (null == connection && freedKeyedIds.contains(localId))
        {
            // a straggler of an authenticated connection freed since: no key opens it, and it is not malformed
            engine.drop(DropReason.NO_CONNECTION);
            return;
        }
        final ConnectionAuth auth = null == connection ? null : connection.protection();
        if (null == auth)
        {
            handler.onDatagram(buffer, offset, length, plane);
            return;
        }
        if (length > STAGING_LENGTH)
        {
            engine.drop(DropReason.UNSEALED);
            return;
        }
        buffer.getBytes(offset, receiveStaging, 0, length);
        if (length >= CLEAR_MINIMUM + SealTrailerDescriptor.TRAILER_LENGTH && SealTrailerDescriptor.lane(
            SealTrailerDescriptor.getLongBigEndian(receiveStaging, length - SealTrailerDescriptor.SEAL_WORD_LENGTH)) !=
            (receiveBuffer.getShort(PATH_ID_OFFSET, ByteOrder.LITTLE_ENDIAN) & 0xFF))
        {
            // a path's datagrams have its lane only, so that another lane's window cannot be spent or replayed into
            engine.drop(DropReason.NO_SUCH_LANE);
            return;
        }
        // the clear part its fixed block says, so that a datagram too short for it and the trailer is UNSEALED
        final int opened = auth.opener().open(receiveStaging, 0, length,
            MESSAGE_HEADER_LENGTH + (receiveBuffer.getShort(0, ByteOrder.LITTLE_ENDIAN) & 0xFFFF));
        if (opened < 0)
        {
            engine.drop(dropReason(opened));
            return;
        }
        handler.onDatagram(receiveBuffer, 0, opened, plane);
    }

    static int dropReason(final int openCode)
    {
        switch (openCode)
        {
            case PacketOpener.UNKNOWN_EPOCH:
                return DropReason.UNKNOWN_EPOCH;
            case PacketOpener.BAD_TAG:
                return DropReason.BAD_TAG;
            case ReplayWindows.REPLAYED:
                return DropReason.REPLAYED;
            case ReplayWindows.TOO_OLD:
                return DropReason.TOO_OLD;
            case ReplayWindows.NO_SUCH_LANE:
                return DropReason.NO_SUCH_LANE;
            default:
                return DropReason.UNSEALED;
        }
    }

    private PacketSealer sealer(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < CLEAR_MINIMUM || isHandshake(buffer, offset))
        {
            return null;
        }
        final ConnectionAuth auth = keyed(buffer.getInt(offset + SRC_CONN_ID_OFFSET, ByteOrder.LITTLE_ENDIAN));
        return null == auth ? null : auth.sealer();
    }

    private ConnectionAuth keyed(final int localId)
    {
        final Connection connection = connectionsById.get(localId);
        return null == connection ? null : connection.protection();
    }

    private int stageAndSeal(final PacketSealer sealer, final DirectBuffer buffer, final int offset, final int length)
    {
        if (length + SealTrailerDescriptor.TRAILER_LENGTH > STAGING_LENGTH)
        {
            return SEND_ERROR;
        }
        buffer.getBytes(offset, sendStaging, 0, length);
        return seal(sealer, length);
    }

    private int seal(final PacketSealer sealer, final int length)
    {
        final int clear = clearLength(sendBuffer, length);
        final int lane = sendBuffer.getShort(PATH_ID_OFFSET, ByteOrder.LITTLE_ENDIAN) & 0xFF;
        return sealer.seal(sendStaging, 0, clear, length - clear, lane);
    }

    /**
     * The clear part of a message: its messageHeader and fixed block, never more than the message.
     */
    private static int clearLength(final DirectBuffer buffer, final int messageLength)
    {
        final int blockLength = buffer.getShort(0, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        return Math.max(0, Math.min(MESSAGE_HEADER_LENGTH + blockLength, messageLength));
    }

    private static boolean isHandshake(final DirectBuffer buffer, final int offset)
    {
        final int templateId = buffer.getShort(offset + 2, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
        return SetupDecoder.TEMPLATE_ID == templateId || SetupAckDecoder.TEMPLATE_ID == templateId;
    }

}
