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
package io.metaroce.datapath.stream;

import io.metaroce.datapath.counters.DropReason;
import org.agrona.DirectBuffer;

import java.net.InetSocketAddress;

/**
 * Asked by a receiving engine when a STREAM_OPEN opens a stream on a connection: does a subscription exist for the
 * stream, and if so, is the image the stream will place into ready. The driver implements it over its subscriptions
 * and image log buffers; it may allocate (opening a stream is off the data path) but should not block the engine's
 * thread: an image whose log takes time to create is prepared elsewhere, and the admission answers {@link #NOT_READY}
 * until it is. The engine answers the sender STREAM_ACK(NOT_READY), keeps the pending stream, asks again every duty
 * cycle, and answers STREAM_ACK(OPEN) unprompted once the image is ready [MR-STRM-13].
 */
@FunctionalInterface
public interface ImageAdmission
{
    /**
     * The answer for a stream that is admitted but whose image is not ready yet. It is a marker the engine compares
     * by identity and never places into: the engine answers STREAM_ACK(NOT_READY) (counted as
     * {@link DropReason#IMAGE_NOT_READY}), keeps the stream pending and asks again.
     */
    FramePlacement NOT_READY = new FramePlacement()
    {
        public void place(
            final int termId, final int termOffset, final DirectBuffer buffer, final int offset, final int length)
        {
            throw new IllegalStateException("ImageAdmission.NOT_READY is a marker, not an image");
        }

        public long consumerPosition()
        {
            throw new IllegalStateException("ImageAdmission.NOT_READY is a marker, not an image");
        }

        public int windowLength()
        {
            throw new IllegalStateException("ImageAdmission.NOT_READY is a marker, not an image");
        }
    };

    /**
     * The answer for a stream whose session an earlier image delivered beyond this opening's start, in a log of
     * another geometry (initial term id or term length), so that the opening cannot continue where that image ended:
     * opening it would deliver positions of the session a second time [MR-CONN-11]. A marker compared by identity:
     * the engine answers STREAM_ACK(CONFLICT), counts {@link DropReason#STREAM_CONFLICT} and keeps no state.
     */
    FramePlacement CONFLICT = new FramePlacement()
    {
        public void place(
            final int termId, final int termOffset, final DirectBuffer buffer, final int offset, final int length)
        {
            throw new IllegalStateException("ImageAdmission.CONFLICT is a marker, not an image");
        }

        public long consumerPosition()
        {
            throw new IllegalStateException("ImageAdmission.CONFLICT is a marker, not an image");
        }

        public int windowLength()
        {
            throw new IllegalStateException("ImageAdmission.CONFLICT is a marker, not an image");
        }
    };

    /**
     * A sender wants to open a stream. The engine asks again, for a stream it keeps pending, every duty cycle until
     * the answer is no longer {@link #NOT_READY}.
     *
     * @param streamId      of the publication.
     * @param sessionId     of the publication.
     * @param initialTermId of the publication's log.
     * @param activeTermId  term of the first byte the connection will carry.
     * @param termOffset    offset in {@code activeTermId} of that byte.
     * @param termLength    of the publication's log, a power of two in [64 KiB, 1 GiB].
     * @param mtu           negotiated largest datagram of the connection.
     * @param source        the sender's address (host and control port on the plane of the connection's SETUP),
     *                      which names the image's source; null when the transport keeps no addresses.
     * @return the placement of the new image; {@link #NOT_READY} when the stream is admitted but its image is not
     * ready yet (the stream stays pending); {@link #CONFLICT} when the opening would repeat positions of its session;
     * or null when no subscription wants the stream (the engine answers STREAM_ACK(UNKNOWN_STREAM) and keeps no
     * state). An image that cannot be created is refused by throwing
     * {@link IllegalStateException} (STREAM_ACK(RESOURCE_EXHAUSTED)).
     */
    FramePlacement onImageRequest(
        int streamId,
        int sessionId,
        int initialTermId,
        int activeTermId,
        int termOffset,
        int termLength,
        int mtu,
        InetSocketAddress source);
}
