/**
 * The checkout page's languages: English, German and Spanish. The page speaks the best match of the browser's
 * `Accept-Language` (quality values honoured), unless `?lang=` names a language it speaks. Numbers and dates
 * are formatted for the locale with `Intl`; crypto amounts keep every digit (the string is formatted, never a float).
 */
import type { Locale } from '../../shared/http/public-pages.js';

export type { Locale } from '../../shared/http/public-pages.js';
export { LOCALES, negotiate, fill, formatAmount, formatPrice, DATE_FIELDS, formatDate } from '../../shared/http/public-pages.js';

/** Every text of the page; `{name}` placeholders are filled by `fill` (on the server) or by the page's script. */
export interface Messages {
  readonly title: string;
  readonly payment: string;
  readonly price: string;
  readonly order: string;
  readonly sendExactly: string;
  readonly toAddress: string;
  readonly tokenOn: string;
  readonly warning: string;
  readonly copy: string;
  readonly copyAmount: string;
  readonly copyAddress: string;
  readonly copied: string;
  readonly payInWallet: string;
  readonly qrAlt: string;
  readonly timeLeft: string;
  readonly expiresAt: string;
  readonly received: string;
  readonly stillDue: string;
  readonly waiting: string;
  readonly seen: string;
  readonly partiallyPaid: string;
  readonly paid: string;
  readonly expired: string;
  readonly cancelled: string;
  readonly failed: string;
  readonly backToMerchant: string;
  readonly cancelAndReturn: string;
  readonly notFoundTitle: string;
  readonly notFoundText: string;
  readonly tooManyTitle: string;
  readonly tooManyText: string;
  readonly offline: string;
  readonly unavailableTitle: string;
  readonly unavailableText: string;
}

const en: Messages = {
  title: 'Pay {merchant}',
  payment: 'Payment',
  price: 'Price',
  order: 'Order {order}',
  sendExactly: 'Send exactly',
  toAddress: 'To this address',
  tokenOn: '{token} on {network}',
  warning: 'Send only {asset}. Anything sent on another network or in another token is lost.',
  copy: 'Copy',
  copyAmount: 'Copy the amount',
  copyAddress: 'Copy the address',
  copied: 'Copied',
  payInWallet: 'Pay in wallet',
  qrAlt: 'QR code: pay {amount} {token} to {address}',
  timeLeft: 'Time left',
  expiresAt: 'Expires {date}',
  received: 'Received',
  stillDue: 'Still due',
  waiting: 'Waiting for your payment',
  seen: 'Payment seen: {confirmations} of {required} confirmations',
  partiallyPaid: 'Partially paid: {due} {token} still due, to the same address',
  paid: 'Paid. Thank you!',
  expired: 'This payment has expired. Do not send anything to this address.',
  cancelled: 'This payment was cancelled. Do not send anything to this address.',
  failed: 'This payment failed. Do not send anything to this address.',
  backToMerchant: 'Back to {merchant}',
  cancelAndReturn: 'Cancel and return to {merchant}',
  notFoundTitle: 'Payment not found',
  notFoundText: 'This payment link is not valid. Check the link the merchant gave you.',
  tooManyTitle: 'Too many requests',
  tooManyText: 'Please wait a moment and reload the page.',
  offline: 'Connection lost, retrying…',
  unavailableTitle: 'Something went wrong',
  unavailableText: 'Please reload the page in a moment. Reference: {reference}.',
};

const de: Messages = {
  title: '{merchant} bezahlen',
  payment: 'Zahlung',
  price: 'Preis',
  order: 'Bestellung {order}',
  sendExactly: 'Senden Sie genau',
  toAddress: 'An diese Adresse',
  tokenOn: '{token} auf {network}',
  warning: 'Senden Sie nur {asset}. Beträge in einem anderen Netzwerk oder Token gehen verloren.',
  copy: 'Kopieren',
  copyAmount: 'Betrag kopieren',
  copyAddress: 'Adresse kopieren',
  copied: 'Kopiert',
  payInWallet: 'In der Wallet bezahlen',
  qrAlt: 'QR-Code: {amount} {token} an {address} zahlen',
  timeLeft: 'Verbleibende Zeit',
  expiresAt: 'Läuft ab am {date}',
  received: 'Erhalten',
  stillDue: 'Noch offen',
  waiting: 'Wir warten auf Ihre Zahlung',
  seen: 'Zahlung erkannt: {confirmations} von {required} Bestätigungen',
  partiallyPaid: 'Teilweise bezahlt: noch {due} {token} offen, an dieselbe Adresse',
  paid: 'Bezahlt. Vielen Dank!',
  expired: 'Diese Zahlung ist abgelaufen. Senden Sie nichts mehr an diese Adresse.',
  cancelled: 'Diese Zahlung wurde storniert. Senden Sie nichts mehr an diese Adresse.',
  failed: 'Diese Zahlung ist fehlgeschlagen. Senden Sie nichts mehr an diese Adresse.',
  backToMerchant: 'Zurück zu {merchant}',
  cancelAndReturn: 'Abbrechen und zurück zu {merchant}',
  notFoundTitle: 'Zahlung nicht gefunden',
  notFoundText: 'Dieser Zahlungslink ist ungültig. Prüfen Sie den Link, den Sie vom Händler erhalten haben.',
  tooManyTitle: 'Zu viele Anfragen',
  tooManyText: 'Bitte warten Sie einen Moment und laden Sie die Seite neu.',
  offline: 'Verbindung unterbrochen, neuer Versuch…',
  unavailableTitle: 'Etwas ist schiefgelaufen',
  unavailableText: 'Bitte laden Sie die Seite gleich neu. Referenz: {reference}.',
};

const es: Messages = {
  title: 'Pagar a {merchant}',
  payment: 'Pago',
  price: 'Precio',
  order: 'Pedido {order}',
  sendExactly: 'Envíe exactamente',
  toAddress: 'A esta dirección',
  tokenOn: '{token} en {network}',
  warning: 'Envíe solo {asset}. Lo que se envíe en otra red o en otro token se pierde.',
  copy: 'Copiar',
  copyAmount: 'Copiar el importe',
  copyAddress: 'Copiar la dirección',
  copied: 'Copiado',
  payInWallet: 'Pagar en la billetera',
  qrAlt: 'Código QR: pagar {amount} {token} a {address}',
  timeLeft: 'Tiempo restante',
  expiresAt: 'Vence el {date}',
  received: 'Recibido',
  stillDue: 'Pendiente',
  waiting: 'Esperando su pago',
  seen: 'Pago detectado: {confirmations} de {required} confirmaciones',
  partiallyPaid: 'Pago parcial: faltan {due} {token}, a la misma dirección',
  paid: 'Pagado. ¡Gracias!',
  expired: 'Este pago ha vencido. No envíe nada a esta dirección.',
  cancelled: 'Este pago fue cancelado. No envíe nada a esta dirección.',
  failed: 'Este pago ha fallado. No envíe nada a esta dirección.',
  backToMerchant: 'Volver a {merchant}',
  cancelAndReturn: 'Cancelar y volver a {merchant}',
  notFoundTitle: 'Pago no encontrado',
  notFoundText: 'Este enlace de pago no es válido. Compruebe el enlace que le dio el comercio.',
  tooManyTitle: 'Demasiadas solicitudes',
  tooManyText: 'Espere un momento y vuelva a cargar la página.',
  offline: 'Conexión perdida, reintentando…',
  unavailableTitle: 'Algo salió mal',
  unavailableText: 'Vuelva a cargar la página en un momento. Referencia: {reference}.',
};

export const MESSAGES: Readonly<Record<Locale, Messages>> = { en, de, es };
