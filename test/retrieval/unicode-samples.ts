/** Texts that exercise every branch of the tokenizer (normalisation, folding, scripts, astral chars). */
export const UNICODE_SAMPLES: string[] = [
  'Café résumé naïve coöperate façade Ångström déjà vu.',
  'Straße GROSSE Maße; ΟΔΟΣ Ὀδυσσεύς σοφός ΣΟΦΌΣ; İstanbul ISTANBUL ı i̇.',
  'ﬁle ﬂow ① ② ⅷ ＦＵＬＬＷＩＤＴＨ ｶﾀｶﾅ ¼ x² H₂O ㎏ ™.',
  '東京都に住んでいます。漢字かなカタカナ交じり文 データベース',
  'ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ ພາສາລາວ ភាសាខ្មែរ မြန်မာဘာသာ',
  'العربية مع التشكيل: كَتَبَ الكِتَابُ. עברית עם ניקוד: שָׁלוֹם. हिन्दी देवनागरी संयुक्ताक्षर क्षत्रिय.',
  'Emoji 🙂 and astral 𝔸𝔹ℂ 𠀋𠀎 mixed with words: résumé👍ok.',
  'Digits 2024 3.14 0x1F IPv6 ::1 RFC9110 http2 utf-8 e.g. fetch.spec.whatwg.org i.e. 1,000,000.',
  'Combining a\u0301 e\u0308 o\u0302 decomposed; precomposed á ë ô; Hangul 한국어 텍스트 ᄀᄁ.',
  'Russian Ёлка ёжик Щука; Ukrainian Їжак ґанок; Serbian Ђурђевак.',
  'Words that stem: running runs ran generalizations generalization connected connection.',
  'A very long token ' + 'abcdefghij'.repeat(12) + ' then normal words.',
];
