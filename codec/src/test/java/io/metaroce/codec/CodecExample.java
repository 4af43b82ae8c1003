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
package io.metaroce.codec;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.function.ToIntBiFunction;

/**
 * One example message: its specification name, its template id and the encoder that writes it.
 */
record CodecExample(String name, int templateId, ToIntBiFunction<MutableDirectBuffer, Integer> encoder)
{
    int encode(final MutableDirectBuffer buffer, final int offset)
    {
        return encoder.applyAsInt(buffer, offset);
    }

    byte[] bytes()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[2048]);
        final int length = encode(buffer, 0);
        final byte[] bytes = new byte[length];
        buffer.getBytes(0, bytes);
        return bytes;
    }
}
