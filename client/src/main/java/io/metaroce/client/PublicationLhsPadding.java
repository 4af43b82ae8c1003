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
package io.metaroce.client;

/**
 * Padding before the fields of a {@link Publication}: keeps them 128 bytes away from objects allocated just before
 * it.
 */
@SuppressWarnings("checkstyle:MultipleVariableDeclarations")
abstract class PublicationLhsPadding
{
    long p01, p02, p03, p04, p05, p06, p07, p08;
    long p09, p10, p11, p12, p13, p14, p15, p16;
}
