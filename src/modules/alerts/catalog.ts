/**
 * @module alerts/catalog
 * The words of alert messages (every destination's format, and the email) in each mail language
 * (src/mail/catalog.ts: English and the intake page's languages; the console has no catalog of its
 * own). A rule's messages use its `lang` — by default the `Accept-Language` of the request that
 * created it. `{name}` placeholders are filled by {@link fill}. Machine-quality translations by the
 * developer, as the digest's (docs/decisions/digests.md): a native speaker should review them.
 */

/** One language's words of an alert. */
export type AlertWords = {
  /** `{rule}`, `{link}`. */
  title: string;
  why: string;
  sentiment: string;
  positive: string;
  neutral: string;
  negative: string;
  open: string;
  reason_negative: string;
  reason_actionable: string;
  reason_nps: string;
  /** `{score}`. */
  reason_nps_score: string;
  /** `{label}`. */
  reason_theme: string;
  /** `{keyword}`. */
  reason_keyword: string;
  /** The rate-limit note for one dropped alert. */
  suppressed_one: string;
  /** …for `{count}` (2 or more) dropped alerts. */
  suppressed_other: string;
  email_footer: string;
  /** The preview's sample answer (when no response is given). */
  sample_quote: string;
};

export const ALERT_CATALOG: Record<string, AlertWords> = {
  en: {
    title: "Alert “{rule}” on {link}",
    why: "Why",
    sentiment: "Sentiment",
    positive: "positive",
    neutral: "neutral",
    negative: "negative",
    open: "Open the response",
    reason_negative: "Negative sentiment",
    reason_actionable: "Actionable feedback",
    reason_nps: "NPS detractor",
    reason_nps_score: "NPS detractor ({score}/10)",
    reason_theme: "Theme “{label}”",
    reason_keyword: "Keyword “{keyword}”",
    suppressed_one: "1 earlier alert was not sent (rate limit).",
    suppressed_other: "{count} earlier alerts were not sent (rate limit).",
    email_footer: "Sent by Earshot: an alert rule of this link names you as a recipient.",
    sample_quote: "The checkout kept failing and nobody answered my email about the refund.",
  },
  de: {
    title: "Alarm „{rule}“ für {link}",
    why: "Grund",
    sentiment: "Stimmung",
    positive: "positiv",
    neutral: "neutral",
    negative: "negativ",
    open: "Antwort öffnen",
    reason_negative: "Negative Stimmung",
    reason_actionable: "Umsetzbares Feedback",
    reason_nps: "NPS-Kritiker",
    reason_nps_score: "NPS-Kritiker ({score}/10)",
    reason_theme: "Thema „{label}“",
    reason_keyword: "Stichwort „{keyword}“",
    suppressed_one: "1 früherer Alarm wurde nicht gesendet (Ratenlimit).",
    suppressed_other: "{count} frühere Alarme wurden nicht gesendet (Ratenlimit).",
    email_footer: "Von Earshot gesendet: Eine Alarmregel dieses Links nennt Sie als Empfänger.",
    sample_quote: "Der Bezahlvorgang schlug immer wieder fehl, und niemand hat meine E-Mail zur Erstattung beantwortet.",
  },
  fr: {
    title: "Alerte « {rule} » sur {link}",
    why: "Motif",
    sentiment: "Sentiment",
    positive: "positif",
    neutral: "neutre",
    negative: "négatif",
    open: "Ouvrir la réponse",
    reason_negative: "Sentiment négatif",
    reason_actionable: "Retour exploitable",
    reason_nps: "Détracteur NPS",
    reason_nps_score: "Détracteur NPS ({score}/10)",
    reason_theme: "Thème « {label} »",
    reason_keyword: "Mot-clé « {keyword} »",
    suppressed_one: "1 alerte précédente n’a pas été envoyée (limite de fréquence).",
    suppressed_other: "{count} alertes précédentes n’ont pas été envoyées (limite de fréquence).",
    email_footer: "Envoyé par Earshot : une règle d’alerte de ce lien vous désigne comme destinataire.",
    sample_quote: "Le paiement échouait sans cesse et personne n’a répondu à mon e-mail au sujet du remboursement.",
  },
  es: {
    title: "Alerta «{rule}» en {link}",
    why: "Motivo",
    sentiment: "Sentimiento",
    positive: "positivo",
    neutral: "neutral",
    negative: "negativo",
    open: "Abrir la respuesta",
    reason_negative: "Sentimiento negativo",
    reason_actionable: "Comentario accionable",
    reason_nps: "Detractor NPS",
    reason_nps_score: "Detractor NPS ({score}/10)",
    reason_theme: "Tema «{label}»",
    reason_keyword: "Palabra clave «{keyword}»",
    suppressed_one: "1 alerta anterior no se envió (límite de frecuencia).",
    suppressed_other: "{count} alertas anteriores no se enviaron (límite de frecuencia).",
    email_footer: "Enviado por Earshot: una regla de alerta de este enlace le indica como destinatario.",
    sample_quote: "El pago fallaba una y otra vez y nadie respondió a mi correo sobre el reembolso.",
  },
  it: {
    title: "Avviso «{rule}» su {link}",
    why: "Motivo",
    sentiment: "Sentimento",
    positive: "positivo",
    neutral: "neutro",
    negative: "negativo",
    open: "Apri la risposta",
    reason_negative: "Sentimento negativo",
    reason_actionable: "Feedback attuabile",
    reason_nps: "Detrattore NPS",
    reason_nps_score: "Detrattore NPS ({score}/10)",
    reason_theme: "Tema «{label}»",
    reason_keyword: "Parola chiave «{keyword}»",
    suppressed_one: "1 avviso precedente non è stato inviato (limite di frequenza).",
    suppressed_other: "{count} avvisi precedenti non sono stati inviati (limite di frequenza).",
    email_footer: "Inviato da Earshot: una regola di avviso di questo link ti indica come destinatario.",
    sample_quote: "Il pagamento continuava a fallire e nessuno ha risposto alla mia email sul rimborso.",
  },
  nl: {
    title: "Melding ‘{rule}’ voor {link}",
    why: "Reden",
    sentiment: "Sentiment",
    positive: "positief",
    neutral: "neutraal",
    negative: "negatief",
    open: "Antwoord openen",
    reason_negative: "Negatief sentiment",
    reason_actionable: "Bruikbare feedback",
    reason_nps: "NPS-criticaster",
    reason_nps_score: "NPS-criticaster ({score}/10)",
    reason_theme: "Thema ‘{label}’",
    reason_keyword: "Trefwoord ‘{keyword}’",
    suppressed_one: "1 eerdere melding is niet verzonden (limiet).",
    suppressed_other: "{count} eerdere meldingen zijn niet verzonden (limiet).",
    email_footer: "Verzonden door Earshot: een meldingsregel van deze link noemt u als ontvanger.",
    sample_quote: "Het afrekenen mislukte steeds en niemand beantwoordde mijn e-mail over de terugbetaling.",
  },
  pt: {
    title: "Alerta “{rule}” em {link}",
    why: "Motivo",
    sentiment: "Sentimento",
    positive: "positivo",
    neutral: "neutro",
    negative: "negativo",
    open: "Abrir a resposta",
    reason_negative: "Sentimento negativo",
    reason_actionable: "Feedback acionável",
    reason_nps: "Detrator NPS",
    reason_nps_score: "Detrator NPS ({score}/10)",
    reason_theme: "Tema “{label}”",
    reason_keyword: "Palavra-chave “{keyword}”",
    suppressed_one: "1 alerta anterior não foi enviado (limite de frequência).",
    suppressed_other: "{count} alertas anteriores não foram enviados (limite de frequência).",
    email_footer: "Enviado pelo Earshot: uma regra de alerta deste link indica você como destinatário.",
    sample_quote: "O pagamento falhava sempre e ninguém respondeu ao meu e-mail sobre o reembolso.",
  },
  pl: {
    title: "Alert „{rule}” dla {link}",
    why: "Powód",
    sentiment: "Wydźwięk",
    positive: "pozytywny",
    neutral: "neutralny",
    negative: "negatywny",
    open: "Otwórz odpowiedź",
    reason_negative: "Negatywny wydźwięk",
    reason_actionable: "Informacja do działania",
    reason_nps: "Krytyk NPS",
    reason_nps_score: "Krytyk NPS ({score}/10)",
    reason_theme: "Temat „{label}”",
    reason_keyword: "Słowo kluczowe „{keyword}”",
    suppressed_one: "Nie wysłano 1 wcześniejszego alertu (limit częstotliwości).",
    // A count-neutral phrasing: Polish plurals take three forms.
    suppressed_other: "Niewysłane wcześniejsze alerty (limit częstotliwości): {count}.",
    email_footer: "Wysłane przez Earshot: reguła alertu tego linku wskazuje Cię jako odbiorcę.",
    sample_quote: "Płatność ciągle się nie udawała i nikt nie odpowiedział na mój e-mail w sprawie zwrotu.",
  },
  ar: {
    title: "تنبيه «{rule}» على {link}",
    why: "السبب",
    sentiment: "الانطباع",
    positive: "إيجابي",
    neutral: "محايد",
    negative: "سلبي",
    open: "فتح الرد",
    reason_negative: "انطباع سلبي",
    reason_actionable: "ملاحظات قابلة للتنفيذ",
    reason_nps: "منتقد في NPS",
    reason_nps_score: "منتقد في NPS ({score}/10)",
    reason_theme: "الموضوع «{label}»",
    reason_keyword: "الكلمة المفتاحية «{keyword}»",
    suppressed_one: "لم يُرسل تنبيه سابق واحد (حد المعدل).",
    // A count-neutral phrasing: Arabic plurals take several forms.
    suppressed_other: "تنبيهات سابقة لم تُرسل (حد المعدل): {count}.",
    email_footer: "أرسله Earshot: قاعدة تنبيه لهذا الرابط تذكرك كمستلم.",
    sample_quote: "فشل الدفع مرارًا ولم يرد أحد على رسالتي بشأن استرداد المبلغ.",
  },
};

/** The languages alert messages can be written in (the mail languages). */
export const ALERT_LANGUAGES = ["en", "de", "fr", "es", "it", "nl", "pt", "pl", "ar"] as const;

/** The words of `lang`, English when it has none. */
export function alertWordsOf(lang: string | null | undefined): AlertWords {
  return ALERT_CATALOG[lang ?? "en"] ?? ALERT_CATALOG.en!;
}

/** The catalog language used for `lang` (`en` when it has none). */
export function alertLanguageOf(lang: string | null | undefined): string {
  return lang && lang in ALERT_CATALOG ? lang : "en";
}

/** `template` with each `{name}` replaced by `values[name]` (left as is when absent). */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, k: string) => (k in values ? String(values[k]) : whole));
}
