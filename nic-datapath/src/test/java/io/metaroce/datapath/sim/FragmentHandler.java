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
package io.metaroce.datapath.sim;

import org.agrona.DirectBuffer;

/**
 * Receives the fragments a {@link SimulatedImage} delivers in stream order.
 */
@FunctionalInterface
public interface FragmentHandler
{
    /**
     * A complete data frame at the image's consumer position.
     *
     * @param buffer   holding the fragment.
     * @param offset   of the fragment's payload (after the frame header).
     * @param length   of the payload.
     * @param flags    the frame's BEGIN, END and EOS flags.
     * @param position stream position of the frame.
     */
    void onFragment(DirectBuffer buffer, int offset, int length, int flags, long position);
}
