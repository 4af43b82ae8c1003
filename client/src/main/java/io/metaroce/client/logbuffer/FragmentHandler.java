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
package io.metaroce.client.logbuffer;

import org.agrona.DirectBuffer;

/**
 * Receives the fragments a poll reads from an image. A fragment is a whole message unless its header's flags say it
 * is part of a larger one; a {@link FragmentAssembler} in front of the handler reassembles those.
 */
@FunctionalInterface
public interface FragmentHandler
{
    /**
     * Called for each fragment read, on the polling thread. The buffer is only valid during the call.
     *
     * @param buffer holding the payload.
     * @param offset of the payload.
     * @param length of the payload.
     * @param header of the frame that carried it.
     */
    void onFragment(DirectBuffer buffer, int offset, int length, Header header);
}
