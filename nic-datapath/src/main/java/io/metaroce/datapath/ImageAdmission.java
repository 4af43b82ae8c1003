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

/**
 * Asked by a receiving engine when a valid SETUP opens a connection: does a subscription exist for the stream, and if
 * so, create the image the connection will place into. The driver implements it over its subscriptions and image
 * log buffers; it may allocate (setup is off the data path).
 */
@FunctionalInterface
public interface ImageAdmission
{
    /**
     * A sender wants to open a connection for a stream.
     *
     * @param streamId      of the publication.
     * @param sessionId     of the publication.
     * @param initialTermId of the publication's log.
     * @param activeTermId  term of the first byte the connection will carry.
     * @param termOffset    offset in {@code activeTermId} of that byte.
     * @param termLength    of the publication's log, a power of two in [64 KiB, 1 GiB].
     * @param mtu           negotiated largest datagram of the connection.
     * @return the placement of the new image, or null when no subscription wants the stream (the engine answers
     * ERROR(UNKNOWN_STREAM) and keeps no state).
     */
    FramePlacement onImageRequest(
        int streamId, int sessionId, int initialTermId, int activeTermId, int termOffset, int termLength, int mtu);
}
