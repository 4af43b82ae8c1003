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

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Where a sender connection reads the stream it sends: the driver implements it over a publication's log buffer, the
 * simulation over an in-memory term log. Positions are stream positions:
 * {@code (termId - initialTermId) x termLength + termOffset}.
 * <p>
 * <b>Frames.</b> The source hands out whole, committed log frames only ({@link io.metaroce.codec.FrameDescriptor}
 * layout, 32-byte aligned). A run never crosses the end of a term. A PAD frame that fills a term's tail ends a run and
 * is handed out as its 32-byte header only; the engine advances the position by the PAD's frame length.
 * <p>
 * <b>Memory ordering.</b> The source decides which frames are committed by reading each frame's length with acquire
 * semantics (pairing with the publisher's release store of the length), so the bytes it wraps are complete when
 * {@link #frames(long, int, UnsafeBuffer)} returns. The bytes of a frame handed out must stay unchanged until the
 * engine reports them acknowledged ({@link ConnectionHandler#onSenderAcknowledged}): the publisher's limit follows
 * the acknowledged position, so a retransmission reads exactly the bytes first sent.
 * <p>
 * Called only on the thread that drives the engine; implementations must not allocate.
 */
public interface PayloadSource
{
    /**
     * Position up to which frames are committed: everything before it can be sent. Used for the backlog reported to
     * the receiver and to tell whether new data exists.
     *
     * @return a stream position.
     */
    long availablePosition();

    /**
     * Wrap the run of whole committed frames that starts at a position, at most {@code maxLength} bytes, never
     * crossing the end of the term.
     *
     * @param position  stream position of the first frame (the end of the previous run).
     * @param maxLength most bytes to hand out.
     * @param view      wrapped around the run (its {@code byteBuffer()} or {@code byteArray()} lets a UDP transport
     *                  write it without copying).
     * @return the run's length in bytes (a multiple of 32, at least 32), or 0 when no whole frame fits or is available.
     */
    int frames(long position, int maxLength, UnsafeBuffer view);

    /**
     * Wrap bytes handed out earlier by {@link #frames(long, int, UnsafeBuffer)}, for a retransmission.
     *
     * @param termId     of the run.
     * @param termOffset of the run.
     * @param length     of the run.
     * @param view       wrapped around the bytes.
     * @return false when the bytes are no longer available (a broken contract: the connection fails).
     */
    boolean retransmitFrames(int termId, int termOffset, int length, UnsafeBuffer view);
}
